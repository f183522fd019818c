package research

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// budgetKeys are the names a budget override may set, in the order the
// error messages list them.
var budgetKeys = []string{"actions", "batches", "time", "pages", "repairs", "context", "usd"}

// ParseBudget applies an override such as "actions=12,batches=4,time=90s"
// to base. Every key is optional; the result is checked so that a preset
// can run (at least one action, batch and page, a context of at least
// 2000 tokens), and an error names the key at fault.
func ParseBudget(base Budget, override string) (Budget, error) {
	b := base
	for _, part := range strings.Split(override, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if !ok || val == "" {
			return base, fmt.Errorf("%q is not key=value (keys: %s)", part, strings.Join(budgetKeys, ", "))
		}
		whole := func(min, max int) (int, error) {
			n, err := strconv.Atoi(val)
			if err != nil || n < min || n > max {
				return 0, fmt.Errorf("%s: %q is not a whole number from %d to %d", key, val, min, max)
			}
			return n, nil
		}
		var err error
		switch key {
		case "actions":
			b.MaxActions, err = whole(1, 200)
		case "batches":
			b.MaxBatches, err = whole(1, 50)
		case "pages":
			b.PagesPerSearch, err = whole(1, 20)
		case "repairs":
			b.RepairPasses, err = whole(0, 5)
		case "context":
			b.ContextTokens, err = whole(2000, 2000000)
		case "time":
			d, perr := time.ParseDuration(val)
			if perr != nil || d < time.Second || d > 2*time.Hour {
				err = fmt.Errorf("time: %q is not a duration from 1s to 2h such as 90s", val)
			}
			b.MaxTime = Duration(d)
		case "usd":
			f, perr := strconv.ParseFloat(val, 64)
			if perr != nil || f < 0 || f > 1000 {
				err = fmt.Errorf("usd: %q is not a number of dollars from 0 (no cap) to 1000", val)
			}
			b.MaxUSD = f
		default:
			err = fmt.Errorf("unknown key %q (keys: %s)", key, strings.Join(budgetKeys, ", "))
		}
		if err != nil {
			return base, err
		}
	}
	if b.MaxBatches > b.MaxActions {
		return base, fmt.Errorf("batches: %d is more than actions (%d); every batch runs at least one action", b.MaxBatches, b.MaxActions)
	}
	return b, nil
}
