package harness

import (
	"os"
	"strconv"
)

// EnvInt is the integer in environment variable name, or def when it is
// unset or not an integer.
func EnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
