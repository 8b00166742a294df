package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Memory is a process's resident set and its peak (VmRSS and VmHWM of
// /proc/<pid>/status), in KiB.
type Memory struct{ RSS, Peak int64 }

// ProcessMemory reads the memory of process pid (0: this process).
func ProcessMemory(pid int) (Memory, error) {
	path := "/proc/self/status"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.RSS = v
		case "VmHWM:":
			m.Peak = v
		}
	}
	return m, nil
}

// MiB converts KiB to MiB.
func MiB(kib int64) float64 { return float64(kib) / 1024 }

// ProcessCPU is the CPU time (user and system) process pid has used.
func ProcessCPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's closing parenthesis; utime and stime
	// are the 14th and 15th of the line, in clock ticks (100 a second).
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
