package llm

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// promptFiles holds the stage prompts, one Markdown template per stage.
//
//go:embed prompts/*.md
var promptFiles embed.FS

// loadPrompts parses the embedded prompt templates.
func loadPrompts() (*template.Template, error) {
	t, err := template.New("prompts").Option("missingkey=error").ParseFS(promptFiles, "prompts/*.md")
	if err != nil {
		return nil, fmt.Errorf("llm: parse prompts: %w", err)
	}
	return t, nil
}

// promptData is what the prompt templates may refer to.
type promptData struct {
	Today       string
	Engines     string
	FirstEngine string
	MaxNew      int
	Error       string
}

// render executes the prompt template of a stage ("plan", "heartbeat", …).
func (e *Engine) render(name string, data promptData) (string, error) {
	var b strings.Builder
	if err := e.prompts.ExecuteTemplate(&b, name+".md", data); err != nil {
		return "", fmt.Errorf("llm: render %s prompt: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// engineList names the available search engines for a prompt.
func engineList(engines []string) (list, first string) {
	if len(engines) == 0 {
		return defaultSearchEngine, defaultSearchEngine
	}
	return strings.Join(engines, ", "), engines[0]
}

// defaultSearchEngine is named in prompts when the pipeline gives no list.
const defaultSearchEngine = "duckduckgo"
