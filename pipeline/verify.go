package pipeline

import (
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// The verifier lives in package report, beside the report value it
// checks. These names forward to it so callers written against the runner
// keep compiling; new code should use package report directly.
type (
	// VerifyOptions is report.VerifyOptions.
	VerifyOptions = report.VerifyOptions
	// Verification is report.Verification.
	Verification = report.Verification
	// SentenceCheck is report.SentenceCheck.
	SentenceCheck = report.SentenceCheck
	// CriterionCheck is report.CriterionCheck.
	CriterionCheck = report.CriterionCheck
)

// DefaultVerifyOptions is report.DefaultVerifyOptions.
func DefaultVerifyOptions() VerifyOptions { return report.DefaultVerifyOptions() }

// Verify is report.Verify.
func Verify(markdown string, sources []research.Source, prior []research.PriorSection, criteria []string, opt VerifyOptions) Verification {
	return report.Verify(markdown, sources, prior, criteria, opt)
}

// Score is report.Score.
func Score(v Verification) float64 { return report.Score(v) }

// Feedback is report.Feedback.
func Feedback(v Verification) []string { return report.Feedback(v) }
