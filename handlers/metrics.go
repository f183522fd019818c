package handlers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// registerMetrics builds the registry /metrics serves: Go and process
// collectors, HTTP requests by route, open SSE streams, runs by status
// (counted in Postgres, so every replica reports the cluster-wide figure)
// and whatever Options.Collectors adds.
func (s *Server) registerMetrics() {
	s.registry = prometheus.NewRegistry()
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "quarry_http_requests_total",
		Help: "HTTP requests served, by method, route pattern and status code.",
	}, []string{"method", "route", "code"})
	s.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.requests,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "quarry_sse_clients",
			Help: "Open SSE event streams on this process.",
		}, func() float64 { return float64(s.clients.Load()) }),
		&runsCollector{store: s.store},
	)
	s.registry.MustRegister(s.access.collectors()...)
	for _, c := range s.opt.Collectors {
		s.registry.MustRegister(c)
	}
}

// runsCollector reports the number of runs in each status.
type runsCollector struct {
	store *db.Store
}

var runsDesc = prometheus.NewDesc("quarry_runs", "Runs in the database, by status.", []string{"status"}, nil)

// Describe implements prometheus.Collector.
func (c *runsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- runsDesc }

// Collect implements prometheus.Collector. A database error is reported
// as an invalid metric, which promhttp turns into a scrape error.
func (c *runsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.store.CountRunsByStatus(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(runsDesc, err)
		return
	}
	for _, st := range research.RunStatuses {
		ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(counts[st]), string(st))
	}
}
