// Package research is Quarry's vocabulary: the task spec and its actions,
// budgets and depth presets, run and action statuses, event types and their
// payloads, source labels and the citation-marker pattern. It imports only
// the standard library, so every other package — the runner, the engines,
// storage, the web views — can speak it without linking the machinery.
package research
