package extractive

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers orders the package's files as a question goes through them: a
// file may call its own layer and the layers above it, never one below.
// A new file must be placed here (the test fails until it is).
var layers = [][]string{
	// the question's words
	{"question.go", "meaning.go", "quality.go"},
	// the question's parts
	{"criterion.go", "layout.go"},
	// the evidence and what a sentence says about a part
	{"pool.go", "evidence.go", "match.go", "disagree.go"},
	// stage 1: find the entry of the thing asked
	{"entry.go"},
	// stage 2: score every sentence for every part
	{"relevance.go"},
	// stage 3: pick each part's lead, then what may sit beside it
	{"pick_lead.go"},
	{"pick_beside.go", "pick_list.go"},
	{"pick.go"},
	// stage 4: write the report
	{"compose.go"},
	// the engine: synthesis, chat, planning and the research loop
	{"engine.go", "synthesize.go", "chat.go", "coverage.go", "heartbeat.go", "plan.go", "queries.go", "clarity.go", "route.go"},
}

// TestStagesCallOnlyEarlierStages keeps the synthesis a pipeline that
// reads top to bottom: every call between two of the package's files goes
// from a later layer to the same or an earlier one.
func TestStagesCallOnlyEarlierStages(t *testing.T) {
	t.Parallel()
	rank := map[string]int{}
	for i, files := range layers {
		for _, f := range files {
			rank[f] = i
		}
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, ok := rank[name]; !ok {
			t.Errorf("%s is in no layer: add it to layers", name)
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// Only the package's own functions matter: its imports are left
	// empty, and the errors that leaves (an imported name unknown) are
	// ignored. Type-checking every dependency from source took most of
	// this test's time.
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	conf.Check("extractive", fset, files, info)
	var bad []string
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "extractive" {
			continue
		}
		from := fset.Position(id.Pos()).Filename
		to := fset.Position(fn.Pos()).Filename
		if rank[from] < rank[to] {
			bad = append(bad, from+" calls "+fn.Name()+" of "+to)
		}
	}
	slices.Sort(bad)
	for _, b := range slices.Compact(bad) {
		t.Error(b)
	}
}

// emptyImporter gives every import as an empty, complete package.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	p := types.NewPackage(path, filepath.Base(path))
	p.MarkComplete()
	return p, nil
}
