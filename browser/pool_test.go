package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quarryhq/quarry/egress"
)

func TestPoolContention(t *testing.T) {
	const visitors = 10
	var wg sync.WaitGroup
	errs := make(chan error, visitors)
	for i := range visitors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r, err := testPool.Render(ctx, testSite.url(fmt.Sprintf("/article/c%d?delay=50", i)))
			if err == nil && r.Title != fmt.Sprintf("Article c%d", i) {
				err = fmt.Errorf("visit %d got page %q", i, r.Title)
			}
			errs <- err
		}()
	}
	// While the visitors compete, the pool never lends more than its size.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(5 * time.Millisecond):
			if s := testPool.Stats(); s.InUse > s.Size {
				t.Errorf("in use %d > size %d", s.InUse, s.Size)
			}
		}
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	waitIdle(t, testPool)
	if s := testPool.Stats(); s.Waiting != 0 {
		t.Errorf("waiting = %d after all visits", s.Waiting)
	}
}

func TestAcquireHonoursDeadline(t *testing.T) {
	ctx := context.Background()
	var held []*Tab
	for range testPool.opt.Size {
		tab, err := testPool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tab)
	}
	short, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := testPool.Acquire(short)
	took := time.Since(start)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "all 2 tabs busy") {
		t.Errorf("Acquire on a full pool: err = %v", err)
	}
	if took < 140*time.Millisecond || took > time.Second {
		t.Errorf("Acquire gave up after %v, want about 150ms", took)
	}
	// A tab released with an error is replaced, not reused.
	bad := held[0]
	testPool.Release(bad, errors.New("page broke"))
	testPool.Release(held[1], nil)
	testPool.Release(held[1], nil) // a second release is ignored
	waitIdle(t, testPool)
	for range testPool.opt.Size {
		tab, err := testPool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tab == bad {
			t.Error("a tab released with an error was lent again")
		}
		defer testPool.Release(tab, nil)
	}
}

// TestBrowserKilledMidNavigation kills Chromium while a page is loading:
// that navigation fails, the next one works on a relaunched browser, and
// nothing of the dead browser is left running or unreaped.
func TestBrowserKilledMidNavigation(t *testing.T) {
	p, err := NewPool(context.Background(), PoolOptions{
		Size: 2, NavTimeout: 5 * time.Second, Heartbeat: 500 * time.Millisecond,
		Guard: egress.NewGuard([]string{testSite.host()}),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first, err := p.instance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pid := first.pid()

	result := make(chan error, 1)
	go func() {
		_, err := p.Render(context.Background(), testSite.url("/article/slow?delay=3000"))
		result <- err
	}()
	// Kill the browser once the page's request reached the server.
	for id := ""; id != "slow"; {
		select {
		case id = <-testSite.arrived:
		case <-time.After(5 * time.Second):
			t.Fatal("the navigation never reached the server")
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if err == nil {
			t.Error("the navigation in flight succeeded although its browser was killed")
		}
	case <-time.After(6 * time.Second):
		t.Fatal("the navigation in flight did not fail after the browser was killed")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := p.Render(ctx, testSite.url("/article/after-crash"))
	if err != nil {
		t.Fatalf("visit after the crash: %v", err)
	}
	if r.Title != "Article after-crash" {
		t.Errorf("title = %q", r.Title)
	}
	s := p.Stats()
	if s.Crashes < 1 || s.Relaunches < 1 {
		t.Errorf("stats after a crash: %+v", s)
	}
	second, _ := p.instance(context.Background())
	p.Close()
	assertNoBrowserProcesses(t, pid, second.pid())
}

func TestBrowserRecycledAfterPages(t *testing.T) {
	p, err := NewPool(context.Background(), PoolOptions{
		Size: 2, RecycleAfter: 2, Guard: egress.NewGuard([]string{testSite.host()}),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first, _ := p.instance(context.Background())
	// One page after another: run at once, a page may take its tab from a
	// browser just before that browser is retired, and then no third browser
	// is ever needed (a flake under load, not a pool fault).
	for i := range 5 {
		if _, err := p.Render(context.Background(), testSite.url(fmt.Sprintf("/article/r%d", i))); err != nil {
			t.Errorf("visit %d: %v", i, err)
		}
	}
	s := p.Stats()
	if s.Recycles < 2 || s.Relaunches < 2 || s.Crashes != 0 || s.Pages != 5 {
		t.Errorf("stats after 5 pages with RecycleAfter 2: %+v", s)
	}
	// The first browser was drained and shut down.
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(first.pid()) {
		if time.Now().After(deadline) {
			t.Fatalf("recycled browser %d still running", first.pid())
		}
		time.Sleep(20 * time.Millisecond)
	}
	last, _ := p.instance(context.Background())
	p.Close()
	assertNoBrowserProcesses(t, first.pid(), last.pid())
}

// assertNoBrowserProcesses checks that no process of the browsers' process
// groups survives and that this process has no zombie children.
func assertNoBrowserProcesses(t *testing.T, pgids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			s := string(data)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			state, ppid, pgrp := f[0], f[1], f[2]
			for _, g := range pgids {
				if g > 0 && pgrp == strconv.Itoa(g) && state != "Z" {
					left = append(left, fmt.Sprintf("pid %d of browser group %d (state %s)", pid, g, state))
				}
			}
			if ppid == strconv.Itoa(os.Getpid()) && state == "Z" {
				left = append(left, fmt.Sprintf("zombie child %d", pid))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser processes left behind: %s", strings.Join(left, "; "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0] != "Z"
}

// orphanHelper starts a pool, prints the browser's pid and is then killed
// by its parent test without closing anything.
func orphanHelper() {
	p, err := NewPool(context.Background(), PoolOptions{Size: 1})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	inst, _ := p.instance(context.Background())
	fmt.Println("browser", inst.pid())
	select {}
}

// TestBrowserDiesWithQuarry kills a process that runs a pool, as a crash or
// an OOM kill would: its Chromium must not outlive it.
func TestBrowserDiesWithQuarry(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "QUARRY_TEST_ORPHAN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscanf(stdout, "browser %d\n", &pid); err != nil || pid <= 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper did not report its browser: %v", err)
	}
	if !processAlive(pid) {
		t.Fatalf("browser %d not running", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("browser %d outlived the process that started it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
