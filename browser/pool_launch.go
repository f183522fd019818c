package browser

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"sync"

	"github.com/go-rod/rod/lib/launcher"
)

// launch starts the local Chromium and returns its DevTools URL. The
// process gets its own process group (killed whole at shutdown) and, on
// Linux, dies with Quarry, so a crash of Quarry leaves no browser behind.
func (inst *instance) launch(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "quarry-chromium-")
	if err != nil {
		return "", fmt.Errorf("browser profile dir: %w", err)
	}
	jail, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("browser network jail: %w", err)
	}
	inst.jail = jail
	go func() {
		for {
			c, err := jail.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	// The launcher only assembles Rod's well-tried flag set; the process
	// is started here so that it can be tied to Quarry's lifetime.
	args := launcher.New().
		Headless(true).
		NoSandbox(true).
		UserDataDir(dir).
		Delete("disable-popup-blocking").
		Set("disable-gpu").
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("disable-sync").
		Set("no-first-run").
		Set("disable-quic").
		Set("disable-extensions").
		Set("mute-audio").
		Set("blink-settings", "imagesEnabled=false").
		// Rod's list plus what a crawler never uses: the back-forward cache
		// keeps left pages alive, the rest phone home or idle in the background.
		Set("disable-features", "site-per-process", "TranslateUI", "BackForwardCache", "OptimizationHints", "MediaRouter", "AutofillServerCommunication", "Translate").
		// Every request is fetched by Go through the guard (request
		// interception); anything Chromium would send itself (websockets,
		// preconnects, DNS prefetch) goes to a proxy that hangs up.
		Set("proxy-server", "http://"+jail.Addr().String()).
		Set("proxy-bypass-list", "<-loopback>").
		Set("force-webrtc-ip-handling-policy", "disable_non_proxied_udp").
		FormatArgs()

	cmd := exec.Command(inst.pool.opt.ChromiumPath, args...)
	cmd.SysProcAttr = browserProcAttr()
	out := &devtoolsURL{found: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that started the child exits, so
		// that thread stays locked to this goroutine until the browser is gone.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		inst.proc = cmd.Process
		started <- nil
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
		close(inst.exited)
	}()
	if err := <-started; err != nil {
		_ = jail.Close()
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("launch %s: %w", inst.pool.opt.ChromiumPath, err)
	}
	select {
	case ws := <-out.found:
		return ws, nil
	case <-inst.exited:
		return "", fmt.Errorf("launch %s: browser exited: %s", inst.pool.opt.ChromiumPath, out.tail())
	case <-ctx.Done():
		killProcessGroup(inst.proc.Pid)
		<-inst.exited
		return "", fmt.Errorf("launch %s: no DevTools URL: %w", inst.pool.opt.ChromiumPath, ctx.Err())
	}
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// devtoolsURL watches the browser's output for its DevTools websocket URL
// and keeps the last few KB for error messages.
type devtoolsURL struct {
	mu    sync.Mutex
	buf   []byte
	done  bool
	found chan string
}

func (d *devtoolsURL) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = append(d.buf, p...)
	if !d.done {
		if m := devtoolsLine.FindSubmatch(d.buf); m != nil {
			d.done = true
			d.found <- string(m[1])
		}
	}
	if len(d.buf) > 16<<10 {
		d.buf = d.buf[len(d.buf)-8<<10:]
	}
	return len(p), nil
}

func (d *devtoolsURL) tail() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return string(d.buf)
}
