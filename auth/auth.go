// Package auth is who may use Quarry and how often: password hashing and
// checking for the accounts of QUARRY_AUTH=password, login sessions, and
// the token buckets that rate-limit clients. Sessions and buckets live in
// Postgres (through db), so every replica sees the same ones; the HTTP
// side (cookies, middleware, login pages) is the handlers'.
package auth
