package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
)

func TestEventSeqIsGaplessUnderConcurrency(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	run := createRun(t, s, "seq question")
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func() {
			for j := 0; j < 10; j++ {
				if _, err := s.AppendEvent(ctx, run.ID, "tick", map[string]int{"j": j}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	evs, err := s.EventsAfter(ctx, run.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 81 {
		t.Fatalf("got %d events, want 81", len(evs))
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	tail, _ := s.EventsAfter(ctx, run.ID, 75, 1000)
	if len(tail) != 6 || tail[0].Seq != 76 {
		t.Fatalf("EventsAfter(75) = %d events starting %d", len(tail), tail[0].Seq)
	}
}

// Two stores with their own brokers stand for two replicas: events written
// through one reach a subscriber of the other through NOTIFY.
func TestEventsReachSubscribersOfAnotherReplica(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer := dbtest.NewStore(t)
	reader := dbtest.NewStore(t)
	readerBroker := reader.Broker()
	if err := readerBroker.Listen(ctx, dbtest.URL(t)); err != nil {
		t.Fatal(err)
	}
	run := createRun(t, writer, "replica question")
	sub, err := readerBroker.Subscribe(ctx, run.ID, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	_ = reader
	for i := 0; i < 5; i++ {
		if _, err := writer.AppendEvent(ctx, run.ID, "tick", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	want := int64(2) // run_created was seq 1, before the subscription
	deadline := time.After(5 * time.Second)
	for want <= 6 {
		select {
		case ev := <-sub.C:
			if ev.Seq != want {
				t.Fatalf("got seq %d, want %d", ev.Seq, want)
			}
			want++
		case <-deadline:
			t.Fatalf("timed out waiting for seq %d", want)
		}
	}
}

// A subscriber that never reads is told it lagged; others keep receiving.
func TestSlowSubscriberDoesNotStallOthers(t *testing.T) {
	ctx := context.Background()
	s := dbtest.NewStore(t)
	broker := s.Broker()
	run := createRun(t, s, "slow question")
	slow, err := broker.Subscribe(ctx, run.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fast, err := broker.Subscribe(ctx, run.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	for i := 0; i < 20; i++ {
		if _, err := s.AppendEvent(ctx, run.ID, "tick", nil); err != nil {
			t.Fatal(err)
		}
	}
	got := 0
	deadline := time.After(5 * time.Second)
	for got < 20 {
		select {
		case <-fast.C:
			got++
		case <-deadline:
			t.Fatalf("fast subscriber got %d of 20", got)
		}
	}
	select {
	case <-slow.Lagged:
	case <-time.After(2 * time.Second):
		t.Fatal("slow subscriber was not told it lagged")
	}
}
