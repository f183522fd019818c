package auth

import "time"

// SetClock makes l read the time from now (tests move time without waiting).
func SetClock(l *Limiter, now func() time.Time) { l.now = now }
