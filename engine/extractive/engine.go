// Package extractive is Quarry's built-in engine: it plans, judges coverage
// and writes reports without any model or network, by quoting the fetched
// pages verbatim with their [S#]. Its citations are correct by
// construction, and its reports are the baseline every LLM engine must beat.
package extractive

import "github.com/quarryhq/quarry/engine"

// Engine is the extractive engine. It holds no state; one value serves all
// runs concurrently.
type Engine struct{}

// New returns the extractive engine.
func New() *Engine { return &Engine{} }

// Name is "extractive".
func (e *Engine) Name() string { return "extractive" }

var _ engine.Engine = (*Engine)(nil)
