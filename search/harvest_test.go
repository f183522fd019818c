package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readSERP(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "serp", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHarvestEngines(t *testing.T) {
	tests := []struct {
		engine, file, pageURL string
		want                  []string // expected URLs, in order
		wantTitle             string   // title of the first result
	}{
		{
			engine: "duckduckgo", file: "duckduckgo.html", pageURL: "https://html.duckduckgo.com/html/?q=go+generics+tutorial",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
				"https://pkg.go.dev/golang.org/x/exp/constraints",
				"https://stackoverflow.com/questions/71152876/how-to-use-generics-in-go",
			},
			wantTitle: "Tutorial: Getting started with generics - The Go Programming Language",
		},
		{
			engine: "bing", file: "bing.html", pageURL: "https://www.bing.com/search?q=go+generics+tutorial&setlang=en",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
				"https://pkg.go.dev/golang.org/x/exp/constraints",
			},
			wantTitle: "Tutorial: Getting started with generics - The Go Programming Language",
		},
		{
			engine: "google", file: "google.html", pageURL: "https://www.google.com/search?q=go+generics+tutorial&hl=en&num=10",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
				"https://pkg.go.dev/golang.org/x/exp/constraints",
				"https://stackoverflow.com/questions/71152876/how-to-use-generics-in-go",
			},
			wantTitle: "Tutorial: Getting started with generics - The Go Programming Language",
		},
		{
			engine: "google", file: "google_basic.html", pageURL: "https://www.google.com/search?q=go+generics+tutorial",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
			},
			wantTitle: "Tutorial: Getting started with generics - The Go Programming Language",
		},
		{
			engine: "brave", file: "brave.html", pageURL: "https://search.brave.com/search?q=go+generics+tutorial&source=web",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
				"https://pkg.go.dev/golang.org/x/exp/constraints",
			},
			wantTitle: "Tutorial: Getting started with generics - The Go Programming Language",
		},
		{
			engine: "wikipedia", file: "wikipedia.html", pageURL: "https://en.wikipedia.org/w/index.php?search=go+generics+tutorial&title=Special%3ASearch&profile=advanced&fulltext=1&ns0=1",
			want: []string{
				"https://en.wikipedia.org/wiki/Go_(programming_language)",
				"https://en.wikipedia.org/wiki/Generic_programming",
				"https://en.wikipedia.org/wiki/Parametric_polymorphism",
				"https://en.wikipedia.org/wiki/Comparison_of_programming_languages_(generics)",
				"https://en.wikipedia.org/wiki/Type_constraint",
			},
			wantTitle: "Go (programming language)",
		},
		{
			engine: "github", file: "github.html", pageURL: "https://github.com/search?q=go+generics+tutorial&type=repositories",
			want: []string{
				"https://github.com/golang/go",
				"https://github.com/samber/lo",
				"https://github.com/akutz/go-generics-the-hard-way",
				"https://github.com/mattn/go-generics-example",
				"https://github.com/zyedidia/generic",
				"https://github.com/barweiss/go-tuple",
			},
			wantTitle: "golang/go",
		},
		{
			engine: "stackoverflow", file: "stackoverflow.html", pageURL: "https://stackoverflow.com/search?q=go+generics+tutorial",
			want: []string{
				"https://stackoverflow.com/questions/71152876/how-to-use-generics-in-go",
				"https://stackoverflow.com/questions/71132124/how-to-solve-interface-method-must-have-no-type-parameters",
				"https://stackoverflow.com/questions/70888240/whats-the-difference-between-any-and-interface/70888257",
				"https://stackoverflow.com/questions/69127733/go-generics-constraint-for-numeric-types",
				"https://stackoverflow.com/questions/73591149/generic-struct-with-constraint-in-go",
			},
			wantTitle: "How to use generics in Go?",
		},
		{
			engine: "hackernews", file: "hackernews.json", pageURL: "https://hn.algolia.com/api/v1/search?query=go+generics+tutorial",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://go.dev/blog/when-generics",
				"https://news.ycombinator.com/item?id=32001122",
			},
			wantTitle: "Tutorial: Getting started with generics",
		},
		{
			engine: "searxng", file: "searxng.json", pageURL: "http://searxng.internal:8080/search?q=go+generics+tutorial&format=json",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
			},
			wantTitle: "Tutorial: Getting started with generics - The Go Programming Language",
		},
		// The generic harvester, on results pages it has no selectors for.
		{
			engine: "url:https://search.yahoo.com/search?p={query}", file: "unseen_yahoo.html", pageURL: "https://search.yahoo.com/search?p=go+generics+tutorial",
			want: []string{
				"https://go.dev/doc/tutorial/generics",
				"https://gobyexample.com/generics",
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
			},
			wantTitle: "go.dev Tutorial: Getting started with generics - The Go Programming Language",
		},
		{
			engine: "url:https://www.mojeek.com/search?q={query}", file: "unseen_mojeek.html", pageURL: "https://www.mojeek.com/search?q=go+generics+tutorial",
			want: []string{
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
				"https://pkg.go.dev/golang.org/x/exp/constraints",
				"https://stackoverflow.com/questions/71152876/how-to-use-generics-in-go",
			},
			wantTitle: "How To Use Generics in Go | DigitalOcean",
		},
		{
			engine: "url:https://docs.python.org/3/search.html?q={query}", file: "unseen_docs.html", pageURL: "https://docs.python.org/3/search.html?q=generics",
			want: []string{
				"https://docs.python.org/3/library/typing.html",
				"https://docs.python.org/3/tutorial/classes.html",
				"https://docs.python.org/3/reference/compound_stmts.html",
				"https://docs.python.org/3/whatsnew/3.12.html",
				"https://docs.python.org/3/glossary.html",
			},
			wantTitle: "typing — Support for type hints",
		},
		// A known engine whose markup changed falls back to the generic one.
		{
			engine: "bing", file: "unseen_mojeek.html", pageURL: "https://www.bing.com/search?q=go+generics+tutorial",
			want: []string{
				"https://www.digitalocean.com/community/tutorials/how-to-use-generics-in-go",
				"https://blog.logrocket.com/understanding-generics-go-1-18/",
				"https://go.dev/blog/intro-generics",
				"https://www.freecodecamp.org/news/generics-in-golang/",
				"https://earthly.dev/blog/golang-generics/",
				"https://medium.com/@example/go-generics-in-practice-5b7c8d9e",
				"https://pkg.go.dev/golang.org/x/exp/constraints",
				"https://stackoverflow.com/questions/71152876/how-to-use-generics-in-go",
			},
			wantTitle: "How To Use Generics in Go | DigitalOcean",
		},
	}
	for _, tt := range tests {
		t.Run(tt.engine+"/"+tt.file, func(t *testing.T) {
			got, err := Harvest(tt.engine, tt.pageURL, readSERP(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, r := range got {
				urls = append(urls, r.URL)
			}
			if strings.Join(urls, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("harvested URLs:\n%s\nwant:\n%s", strings.Join(urls, "\n"), strings.Join(tt.want, "\n"))
			}
			if got[0].Title != tt.wantTitle {
				t.Errorf("first title = %q, want %q", got[0].Title, tt.wantTitle)
			}
			for _, r := range got {
				if r.Title == "" {
					t.Errorf("result %s has no title", r.URL)
				}
			}
			if tt.file != "github.html" && !strings.HasPrefix(tt.file, "unseen_docs") && got[0].Snippet == "" {
				t.Errorf("first result has no snippet")
			}
		})
	}
}
