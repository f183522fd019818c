package llm

import "strings"

// minWindow is the smallest context window the prompts fit in.
const minWindow = 2048

// DefaultPrices returns list prices, in US dollars per million tokens, of
// well-known models. A dated or suffixed model name ("gpt-4o-2024-08-06",
// "openai/gpt-4o" on OpenRouter) takes the price of its longest listed prefix.
// Prices change; override them with Options.Prices.
func DefaultPrices() map[string]Price {
	return map[string]Price{
		"gpt-4o":            {Input: 2.50, Output: 10.00},
		"gpt-4o-mini":       {Input: 0.15, Output: 0.60},
		"gpt-4.1":           {Input: 2.00, Output: 8.00},
		"gpt-4.1-mini":      {Input: 0.40, Output: 1.60},
		"gpt-4.1-nano":      {Input: 0.10, Output: 0.40},
		"gpt-5":             {Input: 1.25, Output: 10.00},
		"gpt-5-mini":        {Input: 0.25, Output: 2.00},
		"gpt-5-nano":        {Input: 0.05, Output: 0.40},
		"o3":                {Input: 2.00, Output: 8.00},
		"o3-mini":           {Input: 1.10, Output: 4.40},
		"o4-mini":           {Input: 1.10, Output: 4.40},
		"claude-opus-4":     {Input: 15.00, Output: 75.00},
		"claude-opus-4-1":   {Input: 15.00, Output: 75.00},
		"claude-opus-4-5":   {Input: 5.00, Output: 25.00},
		"claude-sonnet-4":   {Input: 3.00, Output: 15.00},
		"claude-sonnet-4-5": {Input: 3.00, Output: 15.00},
		"claude-3-7-sonnet": {Input: 3.00, Output: 15.00},
		"claude-3-5-sonnet": {Input: 3.00, Output: 15.00},
		"claude-haiku-4-5":  {Input: 1.00, Output: 5.00},
		"claude-3-5-haiku":  {Input: 0.80, Output: 4.00},
	}
}

// knownWindows maps model name prefixes to context windows in tokens.
var knownWindows = map[string]int{
	"gpt-4o":      128000,
	"gpt-4.1":     1047576,
	"gpt-5":       400000,
	"o3":          200000,
	"o4-mini":     200000,
	"claude-":     200000,
	"gpt-4-turbo": 128000,
}

// knownWindow returns the context window of model, or DefaultContextWindow.
func knownWindow(model string) int {
	if w, ok := lookupPrefix(knownWindows, model); ok {
		return w
	}
	return DefaultContextWindow
}

// lookupPrice finds the price of model: exact name, then the longest listed
// prefix, each also tried without a "vendor/" prefix.
func lookupPrice(prices map[string]Price, model string) (Price, bool) {
	return lookupPrefix(prices, model)
}

// lookupPrefix returns the value whose key is model or its longest prefix
// (ending at a '-' or the end of the name), also ignoring a "vendor/" prefix.
func lookupPrefix[T any](table map[string]T, model string) (T, bool) {
	names := []string{model}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		names = append(names, model[i+1:])
	}
	for _, name := range names {
		if v, ok := table[name]; ok {
			return v, true
		}
		best, found := "", false
		for k := range table {
			if len(k) > len(best) && strings.HasPrefix(name, k) &&
				(strings.HasSuffix(k, "-") || len(name) == len(k) || name[len(k)] == '-') {
				best, found = k, true
			}
		}
		if found {
			return table[best], true
		}
	}
	var zero T
	return zero, false
}

// isReasoningModel reports whether model is an OpenAI reasoning model, which
// rejects a temperature and the legacy max_tokens field.
func isReasoningModel(model string) bool {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if model == p || strings.HasPrefix(model, p+"-") {
			return true
		}
	}
	return false
}
