package db

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Broker fans a run's new events out to this process's subscribers. It is
// woken by the store after a local commit and by NOTIFY for commits on other
// replicas; either way it reads the events from run_events, so every
// subscriber sees the same gapless sequence whoever wrote it.
type Broker struct {
	read   EventReader
	logger *slog.Logger

	mu    sync.Mutex
	feeds map[string]*feed

	subscribers atomic.Int64
}

// feed is the per-run reader shared by all of that run's subscribers.
type feed struct {
	runID string
	last  int64
	subs  map[*Subscription]struct{}
	wake  chan struct{}
	stop  chan struct{}
}

// Subscription receives a run's events in seq order. When the subscriber
// falls behind, events are dropped for it alone and Lagged is signalled; it
// then catches up from the database (EventsAfter) and carries on, skipping
// seqs it has already seen.
type Subscription struct {
	C      chan Event
	Lagged chan struct{}
	broker *Broker
	runID  string
}

// EventReader is where a broker reads committed events from: the run's
// last seq when a feed starts, then the events after the last one it sent.
type EventReader interface {
	LastSeq(ctx context.Context, runID string) (int64, error)
	EventsAfter(ctx context.Context, runID string, after int64, limit int) ([]Event, error)
}

// NewBroker returns a broker reading events through read (NewEventReader
// on the database the store writes to). logger may be nil.
func NewBroker(read EventReader, logger *slog.Logger) *Broker {
	if logger == nil {
		logger = slog.Default()
	}
	return &Broker{read: read, logger: logger, feeds: map[string]*feed{}}
}

// Subscribers returns the number of live subscriptions (for metrics).
func (b *Broker) Subscribers() int64 { return b.subscribers.Load() }

// Subscribe registers for the run's events after the run's current last seq.
// Call it before replaying history so nothing committed in between is missed.
func (b *Broker) Subscribe(ctx context.Context, runID string, buffer int) (*Subscription, error) {
	if buffer <= 0 {
		buffer = 64
	}
	sub := &Subscription{C: make(chan Event, buffer), Lagged: make(chan struct{}, 1), broker: b, runID: runID}
	b.mu.Lock()
	f := b.feeds[runID]
	if f == nil {
		// Read under the lock so two first subscribers agree on the start.
		last, err := b.read.LastSeq(ctx, runID)
		if err != nil {
			b.mu.Unlock()
			return nil, err
		}
		f = &feed{runID: runID, last: last, subs: map[*Subscription]struct{}{}, wake: make(chan struct{}, 1), stop: make(chan struct{})}
		b.feeds[runID] = f
		go b.run(f)
	}
	f.subs[sub] = struct{}{}
	b.mu.Unlock()
	b.subscribers.Add(1)
	// Events may have been committed between the feed's start and now.
	b.Notify(runID, 0)
	return sub, nil
}

// Close unsubscribes; the feed stops when its last subscriber leaves.
func (s *Subscription) Close() {
	b := s.broker
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.feeds[s.runID]
	if f == nil {
		return
	}
	if _, ok := f.subs[s]; !ok {
		return
	}
	delete(f.subs, s)
	b.subscribers.Add(-1)
	if len(f.subs) == 0 {
		close(f.stop)
		delete(b.feeds, s.runID)
	}
}

// Notify tells the broker that run has events up to seq (0 = unknown).
func (b *Broker) Notify(runID string, seq int64) {
	b.mu.Lock()
	f := b.feeds[runID]
	b.mu.Unlock()
	if f == nil {
		return
	}
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// NotifyAll wakes every feed, after a listener reconnect when notifications
// may have been missed.
func (b *Broker) NotifyAll() {
	b.mu.Lock()
	ids := make([]string, 0, len(b.feeds))
	for id := range b.feeds {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.Notify(id, 0)
	}
}

func (b *Broker) run(f *feed) {
	for {
		select {
		case <-f.stop:
			return
		case <-f.wake:
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			evs, err := b.read.EventsAfter(ctx, f.runID, f.last, 500)
			cancel()
			if err != nil {
				// The last subscriber may have left (and the database been
				// closed) while the read was under way: stop quietly then.
				select {
				case <-f.stop:
					return
				default:
				}
				b.logger.Warn("read events for subscribers", "run_id", f.runID, "err", err)
				select {
				case <-f.stop:
					return
				case <-time.After(500 * time.Millisecond):
				}
				continue
			}
			if len(evs) == 0 {
				break
			}
			b.mu.Lock()
			for _, ev := range evs {
				for sub := range f.subs {
					select {
					case sub.C <- ev:
					default:
						select {
						case sub.Lagged <- struct{}{}:
						default:
						}
					}
				}
			}
			b.mu.Unlock()
			f.last = evs[len(evs)-1].Seq
			if len(evs) < 500 {
				break
			}
		}
	}
}

// Listen follows NOTIFY quarry_events until ctx ends, waking the feeds of
// runs other replicas wrote to. On reconnect it wakes every feed so they
// resynchronise from the table.
func (b *Broker) Listen(ctx context.Context, url string) error {
	return listen(ctx, url, NotifyChannel, b.logger, func(payload string) {
		var note struct {
			RunID string `json:"run_id"`
			Seq   int64  `json:"seq"`
		}
		if json.Unmarshal([]byte(payload), &note) == nil {
			b.Notify(note.RunID, note.Seq)
		}
	}, b.NotifyAll)
}
