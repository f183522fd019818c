package extract

import (
	"strings"
	"testing"
)

// listPage is a reference page whose numbered rules hold a short list
// announced by a colon, followed by a "See also:" list of links.
const listPage = `<!DOCTYPE html><html><head><title>Typed columns</title></head><body>
<div class="nosearch"><ul class="menu"><li><a href="/">Home</a></li><li><a href="/docs.html">Docs</a></li></ul></div>
<h1>Typed columns</h1>
<p>Columns of a typed table follow stricter rules than the columns of an ordinary table, and the
store checks every value written to them against the declared type before it is saved.</p>
<p>Declaring a table as typed causes the following differences:</p>
<ol>
<li><p>Every column definition must name a type for that column. A column can no longer be declared without one.</p></li>
<li><p>The type must be one of the following:</p>
<ul>
<li> WHOLE
</li><li> DECIMAL
</li><li> STRING
</li><li> BYTES
</li></ul>
<p>No other type names are accepted, though later releases may add some to the list.</p></li>
<li><p>A value of another type is converted to the declared type when that loses nothing, and is refused otherwise
with an error naming the column.</p></li>
</ol>
<p>Typed tables were added in release 4.2 and may be mixed freely with ordinary tables in one file.</p>
<p>See also:</p>
<ul><li><a href="/a.html">Column types</a></li><li><a href="/b.html">Conversions</a></li></ul>
</body></html>`

// A list announced by its lead-in keeps its items in the text even where
// the main-text extractor drops them; a list of links is not put back.
func TestAnnouncedListRestored(t *testing.T) {
	page, err := Extract([]byte(listPage), "http://127.0.0.1/docs/typed.html")
	if err != nil {
		t.Fatal(err)
	}
	want := "The type must be one of the following:\n- WHOLE\n- DECIMAL\n- STRING\n- BYTES\n\nNo other type names"
	if !strings.Contains(page.Text, want) {
		t.Errorf("text lacks the announced list:\n%s", page.Text)
	}
	if strings.Count(page.Text, "DECIMAL") != 1 {
		t.Errorf("list items repeated:\n%s", page.Text)
	}
	if strings.Contains(page.Text, "Conversions") {
		t.Errorf("a list of links was put back:\n%s", page.Text)
	}
}

func TestRestoreListsKeepsWhatIsThere(t *testing.T) {
	lists := map[string]string{"Pick one of:": "Pick one of:\n- red\n- blue"}
	got := restoreLists([]string{"Pick one of:", "red", "blue", "Done."}, lists)
	if strings.Join(got, "|") != "Pick one of:\n- red\n- blue|Done." {
		t.Errorf("restoreLists repeated a kept list: %q", got)
	}
	got = restoreLists([]string{"Pick one of:", "Done."}, lists)
	if strings.Join(got, "|") != "Pick one of:\n- red\n- blue|Done." {
		t.Errorf("restoreLists = %q", got)
	}
}
