package notify_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/notify"
)

// mailbox is the backend of a real SMTP server (emersion/go-smtp) on
// loopback: it offers STARTTLS, accepts AUTH PLAIN only over TLS, and
// keeps what it receives.
type mailbox struct {
	mu   sync.Mutex
	msgs []received
}

type received struct {
	user, from string
	to         []string
	tls        bool
	data       []byte
}

type session struct {
	box  *mailbox
	conn *smtp.Conn
	cur  received
}

func (b *mailbox) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{box: b, conn: c}, nil
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != "quarry" || password != "s3cret" {
			return errors.New("invalid credentials")
		}
		s.cur.user = username
		return nil
	}), nil
}
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.cur.user == "" {
		return smtp.ErrAuthRequired
	}
	s.cur.from = from
	return nil
}
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.to = append(s.cur.to, to)
	return nil
}
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, s.cur.tls = s.conn.TLSConnectionState()
	s.cur.data = b
	s.box.mu.Lock()
	s.box.msgs = append(s.box.msgs, s.cur)
	s.box.mu.Unlock()
	return nil
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func TestEmailOverSMTP(t *testing.T) {
	cert, roots := selfSigned(t)
	box := &mailbox{}
	srv := smtp.NewServer(box)
	srv.Domain = "127.0.0.1"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	cfg, err := notify.ParseSMTPURL("smtp://quarry:s3cret@" + ln.Addr().String() + "?from=quarry@example.org")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = &tls.Config{RootCAs: roots}
	store := dbtest.NewStore(t)
	dbtest.Exec(t, store, `DELETE FROM notifications`)
	o := newOutbox(t, store, egress.NewGuard(nil), notify.Options{SMTP: cfg})
	ctx := context.Background()
	taskID := newTask(t, store)
	runID := newRun(t, store, taskID)
	if err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "run_finished", Title: "Release watch: version 2.4 <new>",
		TaskID: taskID, RunID: runID, Status: "done", ReportPath: "/runs/" + runID, Changes: "Changed: The current release is version 2.4. [S1]",
		Channels: notify.Channels{Email: "ana@example.com"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.DeliverDue(ctx); err != nil {
		t.Fatal(err)
	}
	rows := allDeliveries(t, store)
	if len(rows) != 1 || rows[0].Status != "delivered" {
		t.Fatalf("delivery: %+v", rows)
	}

	box.mu.Lock()
	defer box.mu.Unlock()
	if len(box.msgs) != 1 {
		t.Fatalf("server received %d messages", len(box.msgs))
	}
	got := box.msgs[0]
	if !got.tls || got.user != "quarry" || got.from != "quarry@example.org" || len(got.to) != 1 || got.to[0] != "ana@example.com" {
		t.Fatalf("envelope: tls=%v user=%q from=%q to=%v", got.tls, got.user, got.from, got.to)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(got.data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if subject != "Release watch: version 2.4 <new>" {
		t.Errorf("subject %q", subject)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("content type %q: %v", msg.Header.Get("Content-Type"), err)
	}
	report := "https://quarry.example.org/q/runs/" + runID
	parts := map[string]string{}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts[pt] = string(b)
	}
	if len(parts) != 2 {
		t.Fatalf("parts %v, want text/plain and text/html", parts)
	}
	if p := parts["text/plain"]; !strings.Contains(p, "Report: "+report) || !strings.Contains(p, "version 2.4. [S1]") {
		t.Errorf("plain part:\n%s", p)
	}
	if h := parts["text/html"]; !strings.Contains(h, `<a href="`+report+`">`) || !strings.Contains(h, "version 2.4 &lt;new&gt;") {
		t.Errorf("HTML part:\n%s", h)
	}
}

func TestParseSMTPURL(t *testing.T) {
	c, err := notify.ParseSMTPURL("smtps://u:p@mail.example.com?from=q@example.com")
	if err != nil || !c.ImplicitTLS || c.Port != "465" || c.Username != "u" || c.Password != "p" || c.From != "q@example.com" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"http://mail.example.com?from=q@example.com", "smtp://mail.example.com", "smtp://?from=q@example.com", "smtp://h?from=nobody"} {
		if _, err := notify.ParseSMTPURL(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
