package db

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
)

// Inbox wakes a user's live notification streams on this replica when a
// notification for them is committed on any replica (NOTIFY quarry_inbox).
// A wake carries nothing: the stream reads what is new from the table, so
// a missed or merged wake loses nothing but latency.
type Inbox struct {
	logger *slog.Logger
	mu     sync.Mutex
	subs   map[string]map[*InboxSubscription]struct{}
}

// InboxSubscription receives a signal on C whenever its owner may have new
// notifications.
type InboxSubscription struct {
	C     chan struct{}
	owner string
	inbox *Inbox
}

// NewInbox returns an inbox with no subscribers; logger may be nil.
func NewInbox(logger *slog.Logger) *Inbox {
	if logger == nil {
		logger = slog.Default()
	}
	return &Inbox{logger: logger, subs: map[string]map[*InboxSubscription]struct{}{}}
}

// Subscribe registers for the owner's wakes.
func (b *Inbox) Subscribe(owner string) *InboxSubscription {
	sub := &InboxSubscription{C: make(chan struct{}, 1), owner: owner, inbox: b}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[owner] == nil {
		b.subs[owner] = map[*InboxSubscription]struct{}{}
	}
	b.subs[owner][sub] = struct{}{}
	return sub
}

// Close unsubscribes.
func (s *InboxSubscription) Close() {
	b := s.inbox
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs[s.owner], s)
	if len(b.subs[s.owner]) == 0 {
		delete(b.subs, s.owner)
	}
}

// Wake signals the owner's subscribers.
func (b *Inbox) Wake(owner string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sub := range b.subs[owner] {
		select {
		case sub.C <- struct{}{}:
		default:
		}
	}
}

func (b *Inbox) wakeAll() {
	b.mu.Lock()
	owners := make([]string, 0, len(b.subs))
	for o := range b.subs {
		owners = append(owners, o)
	}
	b.mu.Unlock()
	for _, o := range owners {
		b.Wake(o)
	}
}

// Listen follows NOTIFY quarry_inbox until ctx ends. On reconnect every
// subscriber is woken, since notifications may have been missed.
func (b *Inbox) Listen(ctx context.Context, url string) error {
	return listen(ctx, url, InboxChannel, b.logger, func(payload string) {
		var note struct {
			Owner string `json:"owner"`
		}
		if json.Unmarshal([]byte(payload), &note) == nil {
			b.Wake(note.Owner)
		}
	}, b.wakeAll)
}
