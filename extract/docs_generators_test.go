package extract

import (
	"bytes"
	"strings"
	"testing"
)

// TestDocGenerators runs the extractor over pages made by the real
// documentation generators (see testdata/docs/README.md): each must be
// taken for documentation, keep its headings, definition lists, tables,
// parameter lists and code blocks, be titled by its own heading, and leave
// out the navigation, sidebars, tables of contents and footers around it.
func TestDocGenerators(t *testing.T) {
	tests := []struct {
		file, title string
		want        []string // paragraphs (prefixes), or lines of a code block
		absent      []string
	}{
		// DocBook XSL: the PostgreSQL 15 manual.
		{
			file:  "docs/docbook/sql-vacuum.html.gz",
			title: "VACUUM",
			want: []string{
				"VACUUM — garbage-collect and optionally analyze a database",
				"Synopsis",
				"VACUUM [ FULL ] [ FREEZE ] [ VERBOSE ] [ ANALYZE ] [ table_and_columns [, ...] ]\nwhere option can be one of:",
				"Parameters",
				"FULL: Selects “full” vacuum, which can reclaim more space",
				"INDEX_CLEANUP: Normally, VACUUM will skip index vacuuming when there are very few dead tuples in the table.",
				"VACUUM (VERBOSE, ANALYZE) onek;",
				"There is no VACUUM statement in the SQL standard.",
			},
			absent: []string{"Prev", "Next", "Home", "SQL Commands", "UPDATE", "VALUES"},
		},
		{
			file:  "docs/docbook/limits.html",
			title: "Appendix K. PostgreSQL Limits",
			want: []string{
				"Item | Upper Limit | Comment",
				"identifier length | 63 bytes | can be increased by recompiling PostgreSQL",
				"Columns that have been dropped from the table also contribute to the maximum column limit.",
			},
			absent: []string{"Prev", "Next", "Home", "Appendix J", "Appendix L"},
		},
		// Sphinx: the Python 3.11 library reference (its own theme), and a
		// small project built with the alabaster, Read the Docs and nature
		// themes.
		{
			file:  "docs/sphinx/python-bisect.html.gz",
			title: "bisect — Array bisection algorithm",
			want: []string{
				"Source code: Lib/bisect.py",
				"bisect.bisect_left(a, x, lo=0, hi=len(a), *, key=None): Locate the insertion point for x in a to maintain sorted order.",
				"Performance Notes",
				">>> data = [('red', 5), ('blue', 1), ('yellow', 8), ('black', 0)]\n>>> data.sort(key=lambda r: r[1])",
			},
			absent: []string{"Table of Contents", "Previous topic", "Next topic", "This Page", "Report a Bug", "Show Source", "Navigation", "¶", "Copyright", "Theme"},
		},
		{
			file:  "docs/sphinx/alabaster-config.html",
			title: "Configuration",
			want: []string{
				"Command-line options",
				"--port <n>: Listen on TCP port n. The default is 7410.",
				"-w <count>, --workers <count>: Run at most count workers at once.",
				"[server]\nport = 7410\nworkers = 12",
				"job_timeout | 90 seconds | A job still running after this long is stopped.",
				"Changing workers takes effect only after a restart, because the pool is allocated once at startup.",
				"retry_backoff: The delay before the first retry, doubled for each further retry. The default is 2 seconds.",
			},
			absent: []string{"Quick search", "Powered by", "Navigation", "Related Topics", "Previous:", "Spindle manual", "¶", "©"},
		},
		{
			file:   "docs/sphinx/rtd-config.html",
			title:  "Configuration",
			want:   []string{"--port <n>: Listen on TCP port n. The default is 7410.", "max_retries | 3 | How often a failed job is started again.", "Retry policy"},
			absent: []string{"Previous", "Next", "Built with Sphinx", "Spindle manual", "View page source", "»", "Python API"},
		},
		{
			file:  "docs/sphinx/nature-api.html",
			title: "Python API",
			want: []string{
				"spindle.submit(command, *, priority=0, timeout=None): Queue command for execution and return its job identifier.",
				"Parameters: command (list[str]) – the program and its arguments, as a list of strings",
				"priority (int) – jobs with a higher priority run first",
				"Returns: the identifier of the queued job",
				"Raises: QueueFull – when the queue already holds max_queue jobs",
				">>> import spindle\n>>> spindle.submit([\"make\", \"test\"], priority=5)\n'job-0001'",
				"wait(timeout=None): Block until the job finishes and return its exit code.",
			},
			absent: []string{"previous", "Table of Contents", "Quick search", "modules", "index", "Created using"},
		},
		// MkDocs 1.4: the default theme and the readthedocs theme.
		{
			file:  "docs/mkdocs/mkdocs-install.html",
			title: "Installing",
			want: []string{
				"Installing",
				"Requirements",
				"A C compiler",
				"Building from source requires Go 1.22.",
				"git clone https://git.example.org/tessel\ncd tessel && make install",
				"Run tessel --version; it prints the version and exits.",
			},
			absent: []string{"Previous", "Next", "Search", "Home", "Configuration", "Documentation built with", "Table of Contents", "Close"},
		},
		{
			file:  "docs/mkdocs/readthedocs-config.html",
			title: "Configuration",
			want: []string{
				"Options",
				"Option | Default | Meaning",
				"tile_size | 256 | Edge of one tile in pixels.",
				"The cache directory holds rendered tiles. The default is ~/.cache/tessel",
				"cache: /var/cache/tessel\ncache_ttl: 30",
			},
			absent: []string{"»", "Previous", "Next", "Installing", "Built with", "Search docs", "Edit on"},
		},
		// Javadoc (OpenJDK 17).
		{
			file:  "docs/javadoc/JobQueue.html",
			title: "Class JobQueue",
			want: []string{
				"A bounded queue of jobs waiting for a worker.",
				"JobQueue q = new JobQueue(16);\nq.offer(new Job(\"make test\"));",
				"Since: 1.2",
				"Modifier and Type | Field | Description",
				"static final int | DEFAULT_CAPACITY | The capacity used when none is given: 64 jobs.",
				"boolean | offer(Job job) | Adds a job at the tail of the queue.",
				"Method Details",
				"public boolean offer(Job job)",
				"Parameters: job - the job to add",
				"Returns: true if the job was added, false if the queue is full",
				"Throws: NullPointerException - if job is null",
			},
			absent: []string{"Skip navigation", "Overview", "Help", "SEARCH", "Tree", "Deprecated", "Index"},
		},
		{
			file:   "docs/javadoc/package-summary.html",
			title:  "Package org.example.spindle",
			want:   []string{"Queues and runs jobs on a pool of workers.", "Class | Description", "JobQueue | A bounded queue of jobs waiting for a worker."},
			absent: []string{"Skip navigation", "Help", "SEARCH"},
		},
		// rustdoc (Rust 1.95).
		{
			file:  "docs/rustdoc/struct.JobQueue.html.gz",
			title: "Struct JobQueue",
			want: []string{
				"A bounded queue of jobs waiting for a worker.",
				"pub fn offer(&mut self, cmd: &str) -> Result<(), OfferError>",
				"Returns OfferError::Full when the queue is full.",
				"Panics if capacity is zero.",
			},
			absent: []string{"Search", "Settings", "Help", "Summary", "Source", "§", "In crate spindle"},
		},
		{
			file:   "docs/rustdoc/index.html",
			title:  "Crate spindle",
			want:   []string{"Spindle schedules jobs across a pool of workers.", "let mut q = spindle::JobQueue::new(16);\nq.offer(\"make test\");", "JobQueue: A bounded queue of jobs waiting for a worker."},
			absent: []string{"Search", "Settings", "All Items", "§"},
		},
		// godoc (golang.org/x/tools 0.5, Go 1.19): a package in GOPATH and a
		// standard library package.
		{
			file:  "docs/godoc/godoc-spindle.html",
			title: "Package spindle",
			want: []string{
				"import \"example.org/spindle\"",
				"Package spindle schedules jobs across a pool of workers.",
				"q := spindle.NewQueue(16)\nq.Offer(spindle.Job{Command: \"make test\"})",
				"Limits",
				"A queue never holds more than its capacity. The default capacity is 64 jobs.",
				"const DefaultCapacity = 64",
				"type Job",
				"type Job struct {\nCommand string // shell command\nPriority int // higher runs first\n}",
				"func (q *Queue) Offer(j Job) error",
				"Offer adds j at the tail of the queue. It returns ErrFull when the queue already holds its capacity.",
			},
			absent: []string{"Go Documentation Server", "GoDoc", "Overview ▹", "Index ▹", "Build version", "Terms of Service", "¶", "Scan is not yet complete"},
		},
		{
			file:   "docs/godoc/godoc-ring.html.gz",
			title:  "Package ring",
			want:   []string{"Package ring implements operations on circular lists.", "type Ring", "func (r *Ring) Link(s *Ring) *Ring", "Link connects ring r with ring s such that r.Next() becomes s"},
			absent: []string{"Go Documentation Server", "▹ Example", "Terms of Service", "¶"},
		},
		// man2html (1.6g): a man(7) page and an mdoc(7) page.
		{
			file:  "docs/man2html/grep.html.gz",
			title: "GREP",
			want: []string{
				"NAME",
				"grep, egrep, fgrep, rgrep - print lines that match patterns",
				"OPTIONS",
				"-E, --extended-regexp: Interpret PATTERNS as extended regular expressions (EREs, see below).",
				"-e PATTERNS, --regexp=PATTERNS: Use PATTERNS as the patterns.",
				"EXIT STATUS",
				"Normally the exit status is 0 if a line is selected, 1 if no lines were selected, and 2 if an error occurred.",
			},
			absent: []string{"Return to Main Contents", "This document was created by", "Time:", "\n\nIndex"},
		},
		{
			file:  "docs/man2html/ssh_config.html.gz",
			title: "SSH_CONFIG",
			want: []string{
				"ssh_config - OpenSSH client configuration file",
				"AddressFamily: Specifies which address family to use when connecting. Valid arguments are any (the default), inet (use IPv4 only), or inet6 (use IPv6 only).",
				"FILES",
			},
			absent: []string{"Return to Main Contents", "This document was created by", "\n\nIndex"},
		},
		// Texinfo (makeinfo 6.8): a small manual, and a page of the libffi
		// manual as Debian ships it.
		{
			file:  "docs/texinfo/Invoking.html",
			title: "1 Invoking Spindle",
			want: []string{
				"spindle option … [jobfile]",
				"--port=n, -p n: Listen on TCP port n. The default is 7410.",
				"--workers=count: Run at most count workers at once.",
			},
			absent: []string{"Next:", "Previous:", "Up:", "Contents"},
		},
		{
			file:  "docs/texinfo/Limits.html",
			title: "2.1 Per-job limits",
			want: []string{
				"Setting | Default | Meaning",
				"job_timeout | 90 seconds | A job still running after this long is stopped.",
				"A limit set to zero is not enforced, because zero would stop every job at once.",
				"Command: spindle-limit job setting value: Change setting of a queued job to value.",
			},
			absent: []string{"Up:", "Contents", "¶"},
		},
		{
			file:  "docs/texinfo/libffi-The-Basics.html",
			title: "2.1 The Basics",
			want: []string{
				"libffi assumes that you have a pointer to the function you wish to call",
				"Function: ffi_status ffi_prep_cif (ffi_cif *cif, ffi_abi abi, unsigned int nargs, ffi_type *rtype, ffi_type **argtypes): This initializes cif according to the given parameters.",
				"nargs is the number of arguments that this function accepts.",
			},
			absent: []string{"Next:", "Up:", "Simple Example", "[Index]", "¶"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw := readTestdata(t, tt.file)
			doc, err := parseHTML(raw)
			if err != nil {
				t.Fatal(err)
			}
			precleanDocument(doc)
			if _, _, isDoc := documentationText(doc, ""); !isDoc {
				t.Errorf("not taken for documentation")
			}
			page, err := Extract(bytes.Clone(raw), "https://docs.example.org/manual/page.html")
			if err != nil {
				t.Fatal(err)
			}
			if page.Title != tt.title {
				t.Errorf("title %q, want %q", page.Title, tt.title)
			}
			paras := strings.Split(page.Text, "\n\n")
			for _, w := range tt.want {
				if !hasParagraph(paras, w) {
					t.Errorf("no paragraph %q in text:\n%s", w, page.Text)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(page.Text, a) {
					t.Errorf("text contains %q", a)
				}
			}
		})
	}
}

// hasParagraph reports whether a paragraph is w or starts with it, or, for
// a multi-line w (lines of a code block), contains it.
func hasParagraph(paras []string, w string) bool {
	for _, p := range paras {
		if p == w || strings.HasPrefix(p, w) || (strings.Contains(w, "\n") && strings.Contains(p, w)) {
			return true
		}
	}
	return false
}
