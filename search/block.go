package search

import (
	"fmt"
	"net/url"
	"strings"
)

// Kinds of block page, as reported in BlockedError.Kind and
// Results.Blocked.
const (
	BlockCaptcha = "captcha"
	BlockConsent = "consent"
	BlockDenied  = "block"
)

// BlockedError reports that an engine answered with a CAPTCHA, a consent
// wall or a block page instead of results.
type BlockedError struct {
	Engine string
	Kind   string // BlockCaptcha, BlockConsent or BlockDenied
}

// Error names the engine and what it answered instead of results.
func (e *BlockedError) Error() string {
	switch e.Kind {
	case BlockCaptcha:
		return fmt.Sprintf("search engine %s answered with a CAPTCHA", e.Engine)
	case BlockConsent:
		return fmt.Sprintf("search engine %s answered with a consent page", e.Engine)
	}
	return fmt.Sprintf("search engine %s refused the query (blocked or rate-limited)", e.Engine)
}

var (
	captchaMarkers = []string{
		"g-recaptcha", "recaptcha/api", "h-captcha", "hcaptcha.com", "cf-turnstile", "challenges.cloudflare.com",
		"cf-challenge", "challenge-form", "captcha-delivery.com", "px-captcha", "anomaly-modal", "anomaly.js",
		"our systems have detected unusual traffic", "unusual traffic from your computer",
		"are you a robot", "verify you are human", "verify that you are human", "confirm you are human",
		"not a robot", "human verification", "bots use duckduckgo too", "solve the captcha", "enter the characters you see",
		"id=\"captcha", "class=\"captcha", "name=\"captcha",
	}
	consentMarkers = []string{
		"before you continue to google", "before you continue to youtube", "consent.google", "consent.yahoo",
		"action=\"https://consent.", "we value your privacy", "cookie consent", "accept all cookies",
		"manage your privacy", "reject all", "your privacy choices",
	}
	blockMarkers = []string{
		"access denied", "too many requests", "rate limit", "request blocked", "you have been blocked",
		"forbidden", "temporarily blocked", "unusual activity", "automated queries", "service unavailable",
	}
)

// detectBlock classifies a results page that did not give results. A page
// on a known block URL is a block whatever it contains; otherwise markers
// count only when nothing was harvested, so a result that merely mentions
// "captcha" is not mistaken for one.
func detectBlock(finalURL string, status int, html string, harvested int) string {
	if u, err := url.Parse(finalURL); err == nil {
		host := strings.ToLower(u.Hostname())
		switch {
		case strings.HasPrefix(host, "consent."):
			return BlockConsent
		case strings.HasPrefix(u.Path, "/sorry/"), strings.Contains(u.Path, "/captcha"), strings.Contains(u.Path, "/challenge"):
			return BlockCaptcha
		}
	}
	if harvested > 0 {
		return ""
	}
	lower := strings.ToLower(html)
	for _, m := range captchaMarkers {
		if strings.Contains(lower, m) {
			return BlockCaptcha
		}
	}
	for _, m := range consentMarkers {
		if strings.Contains(lower, m) {
			return BlockConsent
		}
	}
	if status == 403 || status == 429 || status == 503 {
		return BlockDenied
	}
	if status >= 400 {
		for _, m := range blockMarkers {
			if strings.Contains(lower, m) {
				return BlockDenied
			}
		}
	}
	return ""
}
