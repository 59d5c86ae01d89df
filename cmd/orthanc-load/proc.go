package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// It is 100 on every Linux architecture Go supports.
const clockTicks = 100

// procSample is one reading of a process's CPU time and memory from /proc.
type procSample struct {
	at       time.Time
	cpuTicks uint64 // utime + stime
	rssKB    int64  // VmRSS
	hwmKB    int64  // VmHWM, the peak RSS
	// anonKB and fileKB are VmRSS's parts: the process's own memory, and pages of files it
	// maps (the binary, and the database bbolt maps), which the kernel may drop and read
	// again.
	anonKB, fileKB int64
}

// readProc reads /proc/<pid>/stat and /proc/<pid>/status; pid "self" is this process.
func readProc(pid string) (procSample, error) {
	s := procSample{at: time.Now()}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return s, fmt.Errorf("read stat: %w", err)
	}
	// The command name is in parentheses and may hold spaces: count fields after it.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return s, fmt.Errorf("parse /proc/%s/stat: no command name", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	// After the name: state (field 3), ... utime (14), stime (15).
	if len(f) < 13 {
		return s, fmt.Errorf("parse /proc/%s/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return s, fmt.Errorf("parse /proc/%s/stat: utime %q stime %q", pid, f[11], f[12])
	}
	s.cpuTicks = ut + st
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return s, fmt.Errorf("read status: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k {
		case "VmRSS":
			s.rssKB = parseKB(v)
		case "VmHWM":
			s.hwmKB = parseKB(v)
		case "RssAnon":
			s.anonKB = parseKB(v)
		case "RssFile":
			s.fileKB = parseKB(v)
		}
	}
	return s, nil
}

// parseKB reads a /proc/<pid>/status size such as "  12345 kB".
func parseKB(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
	return n
}

// cpuPercent is the CPU used between two samples as a share of one core, in percent.
func cpuPercent(a, b procSample) float64 {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 || b.cpuTicks < a.cpuTicks {
		return 0
	}
	return round3(float64(b.cpuTicks-a.cpuTicks) / clockTicks / wall * 100)
}

// loadAverage is the one-minute load average, or 0 where /proc/loadavg is missing.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	return parseLoadAverage(b)
}

// parseLoadAverage reads the one-minute figure of /proc/loadavg's "0.52 0.58 0.59 1/467 12345".
func parseLoadAverage(b []byte) float64 {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}
