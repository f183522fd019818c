// Command quarry is the Quarry deep-research server and its tools:
//
//	quarry serve       the server (pages, JSON API, SSE, workers)
//	quarry migrate     apply database migrations and exit
//	quarry research    run one question through the whole pipeline here
//	quarry eval        score the extractor against a benchmark directory
//	quarry bench       measure page fetching with the browser pool
//	quarry user        manage accounts for QUARRY_AUTH=password
//	quarry token       manage personal API tokens
//	quarry mcp         an MCP server on stdio
//	quarry version     print the version
//
// Configuration comes from the environment (see DESIGN.md); flags of a
// subcommand override it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a subcommand and returns the process exit code: 0 on
// success, 1 on failure, 2 on a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWithInput(ctx, args, os.Stdin, stdout, stderr)
}

// runWithInput is run with standard input given (for --password-stdin).
func runWithInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		err = runServe(ctx, rest)
	case "migrate":
		err = runMigrate(ctx, rest, stdout)
	case "research":
		err = runResearch(ctx, rest)
	case "eval":
		err = runEval(ctx, rest)
	case "bench":
		err = runBench(ctx, rest)
	case "user":
		err = runUser(ctx, rest, stdin, stdout)
	case "library":
		err = runLibrary(ctx, rest, stdout)
	case "token":
		err = runToken(ctx, rest, stdout, stderr)
	case "mcp":
		err = runMCP(ctx, rest, stdin, stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, versionString())
	case "help", "-h", "-help", "--help":
		usage(stdout)
	default:
		fmt.Fprintf(stderr, "quarry: unknown command %q\n\n", cmd)
		usage(stderr)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "quarry:", err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: quarry <command> [flags]

Commands:
  serve      run the server (QUARRY_ADDR, default 127.0.0.1:8080)
  migrate    apply database migrations and exit
  research   [--depth D] [--engines LIST] [--json] QUESTION
  eval       extraction --dir DIR [--out FILE]
  bench      fetch [--concurrency N] --urls FILE
  user       add|remove|list (QUARRY_AUTH=password)
  token      create --user NAME --name LABEL [--read-only] | list --user NAME | revoke ID
  mcp        [--url URL --token T]  an MCP server on stdio (in-process, or forwarding to a server)
  version    print the version

Configuration is read from the environment; see README.md.
`)
}

// versionString is the version with the VCS revision when known.
func versionString() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return "quarry " + v + " " + runtime.Version()
}
