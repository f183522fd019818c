package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
)

// SMTPConfig is the mail server notifications are sent through.
type SMTPConfig struct {
	Host     string
	Port     string
	Username string
	Password string
	From     string // the envelope and header sender
	// ImplicitTLS connects with TLS from the start (smtps://); otherwise
	// the connection is upgraded with STARTTLS whenever the server offers it.
	ImplicitTLS bool
	// TLS is the client TLS configuration (nil: the system roots, the
	// server name of Host); tests set their own roots.
	TLS *tls.Config
	// Timeout bounds one whole delivery (default 30 s).
	Timeout time.Duration
}

// ParseSMTPURL reads QUARRY_SMTP_URL:
// smtp://user:pass@host:port?from=quarry@example.com (STARTTLS when
// offered, port 587 by default) or smtps://… (TLS from the start, port 465).
// Errors name the variable's part at fault.
func ParseSMTPURL(raw string) (*SMTPConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL such as smtp://user:password@mail.example.com:587?from=quarry@example.com")
	}
	c := &SMTPConfig{Host: u.Hostname(), Port: u.Port()}
	switch u.Scheme {
	case "smtp":
		if c.Port == "" {
			c.Port = "587"
		}
	case "smtps":
		c.ImplicitTLS = true
		if c.Port == "" {
			c.Port = "465"
		}
	default:
		return nil, fmt.Errorf("scheme %q: use smtp:// (STARTTLS when offered) or smtps:// (TLS)", u.Scheme)
	}
	if c.Host == "" {
		return nil, errors.New("no host: smtp://mail.example.com:587?from=…")
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	c.From = u.Query().Get("from")
	if c.From == "" {
		return nil, errors.New("no sender: add ?from=quarry@example.com")
	}
	if a, err := mail.ParseAddress(c.From); err != nil || a.Name != "" {
		return nil, fmt.Errorf("from: %q is not an email address", c.From)
	}
	return c, nil
}

// sendEmail mails the notification with a plain-text and an HTML part,
// both linking to the report.
func (o *Outbox) sendEmail(ctx context.Context, it db.OutboxItem) error {
	cfg := o.opt.SMTP
	if cfg == nil {
		return permanent{errors.New("email is not configured (QUARRY_SMTP_URL)")}
	}
	var d Data
	if err := json.Unmarshal(it.Payload, &d); err != nil {
		return permanent{fmt.Errorf("read payload: %w", err)}
	}
	msg, err := buildEmail(cfg.From, it.Target, "msg_"+it.NotificationID, d)
	if err != nil {
		return permanent{err}
	}
	return cfg.send(ctx, it.Target, msg)
}

// send talks SMTP: TLS from the start or STARTTLS when offered, AUTH
// PLAIN when a user is configured (never over an unencrypted connection),
// then the message.
func (c *SMTPConfig) send(ctx context.Context, to string, msg []byte) error {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addr := net.JoinHostPort(c.Host, c.Port)
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connect to SMTP server %s: %w", addr, err)
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	// A worker stopping mid-conversation cuts it short.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	tlsConf := &tls.Config{ServerName: c.Host, MinVersion: tls.VersionTLS12}
	if c.TLS != nil {
		tlsConf = c.TLS.Clone()
		if tlsConf.ServerName == "" {
			tlsConf.ServerName = c.Host
		}
	}
	if c.ImplicitTLS {
		conn = tls.Client(conn, tlsConf)
	}
	client, err := smtp.NewClient(conn, c.Host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("SMTP greeting from %s: %w", addr, err)
	}
	defer client.Close()
	encrypted := c.ImplicitTLS
	if !encrypted {
		if ok, _ := client.Extension("STARTTLS"); ok {
			if err := client.StartTLS(tlsConf); err != nil {
				return fmt.Errorf("STARTTLS with %s: %w", addr, err)
			}
			encrypted = true
		}
	}
	if c.Username != "" {
		if !encrypted {
			return permanent{fmt.Errorf("SMTP server %s offers no STARTTLS; the password is not sent in the clear", addr)}
		}
		if err := client.Auth(smtp.PlainAuth("", c.Username, c.Password, c.Host)); err != nil {
			return fmt.Errorf("SMTP login at %s: %w", addr, err)
		}
	}
	if err := client.Mail(c.From); err != nil {
		return fmt.Errorf("SMTP MAIL FROM: %w", err)
	}
	if err := client.Rcpt(to); err != nil {
		return fmt.Errorf("SMTP RCPT TO: %w", err)
	}
	w, err := client.Data()
	if err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("SMTP message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("SMTP message: %w", err)
	}
	return client.Quit()
}

// emailHTML is the HTML part; html/template escapes every field.
var emailHTML = template.Must(template.New("email").Parse(`<!DOCTYPE html>
<html><body style="font-family: sans-serif; line-height: 1.5">
<h1 style="font-size: 1.2em">{{.Title}}</h1>
{{if .Body}}<p>{{.Body}}</p>{{end}}
{{if .Status}}<p>Status: <strong>{{.Status}}</strong></p>{{end}}
{{if .Changes}}<h2 style="font-size: 1em">What changed</h2><pre style="white-space: pre-wrap">{{.Changes}}</pre>{{end}}
{{if .ReportURL}}<p><a href="{{.ReportURL}}">Open the report</a></p>{{end}}
</body></html>
`))

// buildEmail writes the message: headers, then multipart/alternative with
// the plain-text part first and the HTML part last (the one a client
// prefers when it can show it).
func buildEmail(from, to, id string, d Data) ([]byte, error) {
	var plain strings.Builder
	plain.WriteString(d.Title + "\n\n")
	if d.Body != "" {
		plain.WriteString(d.Body + "\n\n")
	}
	if d.Status != "" {
		plain.WriteString("Status: " + d.Status + "\n\n")
	}
	if d.Changes != "" {
		plain.WriteString("What changed:\n" + d.Changes + "\n\n")
	}
	if d.ReportURL != "" {
		plain.WriteString("Report: " + d.ReportURL + "\n")
	}
	var htmlPart bytes.Buffer
	if err := emailHTML.Execute(&htmlPart, d); err != nil {
		return nil, fmt.Errorf("email HTML: %w", err)
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	host := "quarry.invalid"
	if at := strings.LastIndex(from, "@"); at >= 0 {
		host = from[at+1:]
	}
	nonce := make([]byte, 6)
	rand.Read(nonce)
	headers := []string{
		"From: " + from,
		"To: " + to,
		"Subject: " + mime.QEncoding.Encode("utf-8", strings.NewReplacer("\r", " ", "\n", " ").Replace(d.Title)),
		"Date: " + time.Now().UTC().Format(time.RFC1123Z),
		"Message-ID: <" + id + "." + hex.EncodeToString(nonce) + "@" + host + ">",
		"MIME-Version: 1.0",
		"Content-Type: multipart/alternative; boundary=" + mw.Boundary(),
	}
	var msg bytes.Buffer
	msg.WriteString(strings.Join(headers, "\r\n") + "\r\n\r\n")
	for _, part := range []struct{ typ, body string }{
		{"text/plain; charset=utf-8", plain.String()},
		{"text/html; charset=utf-8", htmlPart.String()},
	} {
		pw, err := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {part.typ}, "Content-Transfer-Encoding": {"quoted-printable"}})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(pw)
		if _, err := qp.Write([]byte(part.body)); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	msg.Write(buf.Bytes())
	return msg.Bytes(), nil
}
