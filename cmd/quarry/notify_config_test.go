package main

import "testing"

// TestNotifyConfig: QUARRY_SMTP_URL is read into the mail settings, and
// links sent out of the server use QUARRY_BASE_URL, else the address it
// listens on.
func TestNotifyConfig(t *testing.T) {
	env := map[string]string{"QUARRY_SMTP_URL": "smtp://q:pw@mail.example.com:2525?from=quarry@example.com", "QUARRY_ADDR": "0.0.0.0:9000"}
	cfg, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SMTP == nil || cfg.SMTP.Host != "mail.example.com" || cfg.SMTP.Port != "2525" || cfg.SMTP.From != "quarry@example.com" || cfg.SMTP.ImplicitTLS {
		t.Errorf("SMTP = %+v", cfg.SMTP)
	}
	if got := cfg.PublicURL(); got != "http://localhost:9000" {
		t.Errorf("PublicURL without a base URL = %q", got)
	}
	env["QUARRY_BASE_URL"] = "https://research.example.com/q/"
	if cfg, _ = LoadConfig(func(k string) string { return env[k] }); cfg.PublicURL() != "https://research.example.com/q" {
		t.Errorf("PublicURL = %q", cfg.PublicURL())
	}
}
