package server

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// diskCollector reads what the database costs on disk, once a scrape: the file's size,
// bbolt's free pages and free list, the pages its commits wrote, how long its write
// transactions take, the replays' churn, and the bytes the process wrote to storage.
// bbolt never shrinks its file: these say whether it levels off under the replays'
// deletes (docs/PERFORMANCE.md, "A soak of the store").
type diskCollector struct {
	s                                 *Server
	file, free, pending, freeB, flist *prometheus.Desc
	pageBytes, commits                *prometheus.Desc
	replayBytes, replayIn, replayOut  *prometheus.Desc
	written                           *prometheus.Desc
}

func newDiskCollector(s *Server) *diskCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &diskCollector{s: s,
		file:    d("orthanc_store_file_bytes", "Size of the database file; bbolt never shrinks it, and reuses the pages deletes free."),
		free:    d("orthanc_store_free_pages", "Pages of the database file free for reuse."),
		pending: d("orthanc_store_pending_pages", "Pages freed by a write that an open read transaction may still see: free once it ends."),
		freeB:   d("orthanc_store_free_bytes", "Bytes of the database file's free pages."),
		flist:   d("orthanc_store_freelist_bytes", "Bytes of bbolt's free list: what a commit writes of it when the free list is kept in the file."),
		pageBytes: d("orthanc_store_page_written_bytes_total",
			"Bytes of the pages the database's commits wrote (bbolt's page allocations, the free list's included; the meta page and fsync not)."),
		commits: d("orthanc_store_commit_duration_seconds",
			"Wall time of one write transaction to the database, from holding its writer's lock to the commit on disk, fsync included."),
		replayBytes: d("orthanc_replay_bytes", "Bytes the replays' keys and values take in the database, held under -replay-store-mb."),
		replayIn:    d("orthanc_replay_written_bytes_total", "Bytes of replays' keys and values written to the database."),
		replayOut:   d("orthanc_replay_deleted_bytes_total", "Bytes of replays' keys and values deleted from the database: by their bound, their age or an admin."),
		written:     d("orthanc_disk_written_bytes_total", "Bytes the server process caused to be written to storage (/proc/self/io write_bytes; Linux only)."),
	}
}

// Describe implements prometheus.Collector.
func (c *diskCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.file, c.free, c.pending, c.freeB, c.flist, c.pageBytes, c.commits,
		c.replayBytes, c.replayIn, c.replayOut, c.written} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. What cannot be read is left out of the
// scrape (and the store's failure logged), not reported as 0.
func (c *diskCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	if ds, err := c.s.store.DiskStats(); err != nil {
		c.s.log.Error("metrics: disk stats", "err", err)
	} else {
		gauge(c.file, float64(ds.FileBytes))
		gauge(c.free, float64(ds.FreePages))
		gauge(c.pending, float64(ds.PendingPages))
		gauge(c.freeB, float64(ds.FreeBytes))
		gauge(c.flist, float64(ds.FreelistBytes))
		counter(c.pageBytes, float64(ds.PageBytesWritten))
		buckets := make(map[float64]uint64, len(store.CommitBuckets))
		var cum uint64
		for i, b := range store.CommitBuckets {
			cum += ds.Commits.Counts[i]
			buckets[b.Seconds()] = cum
		}
		ch <- prometheus.MustNewConstHistogram(c.commits, ds.Commits.Count, ds.Commits.Sum.Seconds(), buckets)
	}
	if c.s.cfg.ReplayMB > 0 {
		churn := c.s.store.ReplayChurn()
		if churn.Bytes >= 0 {
			gauge(c.replayBytes, float64(churn.Bytes))
		}
		counter(c.replayIn, float64(churn.Written))
		counter(c.replayOut, float64(churn.Deleted))
	}
	if n, ok := processWritten(); ok {
		counter(c.written, float64(n))
	}
}

// processWritten is /proc/self/io's write_bytes: what the process caused to be written to
// storage, the page cache's writeback of its mapped file included.
func processWritten() (int64, bool) {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "write_bytes: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
