package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestForbiddenReason(t *testing.T) {
	tests := []struct {
		ip, want string
	}{
		{"127.0.0.1", "is a loopback address"},
		{"127.3.2.1", "is a loopback address"},
		{"::1", "is a loopback address"},
		{"10.1.2.3", "is a private address"},
		{"172.16.0.1", "is a private address"},
		{"192.168.1.1", "is a private address"},
		{"fd12:3456::1", "is a private address"},
		{"169.254.169.254", "is a cloud metadata address"},
		{"fd00:ec2::254", "is a cloud metadata address"},
		{"100.100.100.200", "is a cloud metadata address"},
		{"169.254.1.1", "is a link-local address"},
		{"fe80::1", "is a link-local address"},
		{"224.0.0.1", "is a multicast address"},
		{"ff02::1", "is a multicast address"},
		{"0.0.0.0", "is an unspecified address"},
		{"::", "is an unspecified address"},
		{"100.64.0.1", "is a shared (CGNAT) address"},
		{"0.1.2.3", "is a this-network address"},
		{"255.255.255.255", "is a reserved address"},
		{"::ffff:127.0.0.1", "is a loopback address"},
		{"64:ff9b::a9fe:a9fe", "is a cloud metadata address (NAT64)"},
		{"2002:7f00:1::1", "is a loopback address (6to4)"},
		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
	}
	for _, tt := range tests {
		if got := forbiddenReason(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("forbiddenReason(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}

func TestGuardCheck(t *testing.T) {
	g := NewGuard([]string{"127.0.0.1:8080", "intranet.example", "10.9.0.0/16"})
	g.lookup = fakeDNS(map[string][]string{
		"public.example":   {"93.184.216.34"},
		"rebind.example":   {"93.184.216.34", "127.0.0.1"},
		"intranet.example": {"10.0.0.5"},
		"meta.example":     {"169.254.169.254"},
	})
	tests := []struct {
		url, wantErr string
	}{
		{"https://public.example/page", ""},
		{"http://127.0.0.1:8080/allowed", ""},
		{"http://127.0.0.1:8081/", "egress refused: 127.0.0.1 is a loopback address"},
		{"http://intranet.example/wiki", ""},
		{"http://10.9.4.4/", ""},
		{"http://10.8.4.4/", "egress refused: 10.8.4.4 is a private address"},
		{"http://rebind.example/", "egress refused: rebind.example (127.0.0.1) is a loopback address"},
		{"http://meta.example/latest", "egress refused: meta.example (169.254.169.254) is a cloud metadata address"},
		{"http://localhost:8080/", "egress refused: localhost is a loopback name"},
		{"http://[::1]:8080/", "egress refused: ::1 is a loopback address"},
		{"ftp://public.example/", `uses the "ftp" scheme`},
		{"file:///etc/passwd", `uses the "file" scheme`},
		{"javascript:alert(1)", `uses the "javascript" scheme`},
		{"http:///nohost", "has no host"},
	}
	for _, tt := range tests {
		err := g.Check(context.Background(), tt.url)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("Check(%s) = %v, want allowed", tt.url, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Check(%s) = %v, want %q", tt.url, err, tt.wantErr)
		case tt.wantErr != "" && !errors.Is(err, ErrRefused):
			t.Errorf("Check(%s) = %v, not an ErrRefused", tt.url, err)
		}
	}
}

// The HTTP client checks the address it dials, so a redirect to a private
// address and a name that resolves to one at connect time are both refused.
func TestGuardHTTPClient(t *testing.T) {
	var internalHits int
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits++
		fmt.Fprint(w, "secret")
	}))
	defer internal.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-internal":
			http.Redirect(w, r, internal.URL+"/secret", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			fmt.Fprint(w, "public page")
		}
	}))
	defer public.Close()
	_, publicPort, _ := net.SplitHostPort(public.Listener.Addr().String())
	_, internalPort, _ := net.SplitHostPort(internal.Listener.Addr().String())

	g := NewGuard([]string{public.Listener.Addr().String()})
	// rebind.example answers a loopback address: allowed for nobody.
	g.lookup = fakeDNS(map[string][]string{"rebind.example": {"127.0.0.1"}})
	client := g.HTTPClient(5 * time.Second)

	resp, err := client.Get(public.URL + "/hello")
	if err != nil {
		t.Fatalf("allowed host: %v", err)
	}
	resp.Body.Close()

	for _, u := range []string{
		public.URL + "/to-internal",
		public.URL + "/to-file",
		"http://rebind.example:" + internalPort + "/secret",
		"http://rebind.example:" + publicPort + "/hello", // the allow entry is for 127.0.0.1:port, not this name
	} {
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s succeeded, want an egress refusal", u)
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("GET %s: %v, want an egress refusal", u, err)
		}
	}
	if internalHits != 0 {
		t.Errorf("the internal server was reached %d times", internalHits)
	}
}

func fakeDNS(records map[string][]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		ips, ok := records[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var out []netip.Addr
		for _, ip := range ips {
			out = append(out, netip.MustParseAddr(ip))
		}
		return out, nil
	}
}

// A guarded request's refusal stays an *Error naming the URL; any other
// failure is wrapped with it.
func TestRequestError(t *testing.T) {
	refused := RequestError("http://10.0.0.1/a", fmt.Errorf("dial: %w", &Error{IP: "10.0.0.1", Reason: "is a private address"}))
	var ee *Error
	if !errors.As(refused, &ee) || ee.URL != "http://10.0.0.1/a" || !errors.Is(refused, ErrRefused) {
		t.Errorf("refusal = %#v, want the *Error with its URL", refused)
	}
	other := RequestError("http://example.test/", errors.New("connection reset"))
	if errors.Is(other, ErrRefused) || other.Error() != "fetch http://example.test/: connection reset" {
		t.Errorf("other failure = %q", other)
	}
}
