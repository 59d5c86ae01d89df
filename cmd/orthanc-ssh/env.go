package main

import (
	"flag"
	"log/slog"
	"regexp"
	"slices"
	"strings"
)

// envPrefix starts every variable the server reads.
const envPrefix = "ORTHANC_"

// envInUsage finds the variable a flag's help names: "(env ORTHANC_TICK".
var envInUsage = regexp.MustCompile(`\(env (` + envPrefix + `[A-Z0-9_]+)`)

// envNames lists the variables the flags of fs read, from their help, so that a new
// flag's variable is known without a list to keep.
func envNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if m := envInUsage.FindStringSubmatch(f.Usage); m != nil {
			names = append(names, m[1])
		}
	})
	slices.Sort(names)
	return names
}

// unknownEnv is a variable of the environment that looks meant for the server but is
// none it reads (a misspelling, or a setting of another version), with the known one
// closest to it, if one is close.
type unknownEnv struct {
	name, closest string
}

// unknownEnvs finds the unknown ORTHANC_ variables of environ ("NAME=value" entries).
func unknownEnvs(environ, known []string) []unknownEnv {
	var out []unknownEnv
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) {
			continue
		}
		out = append(out, unknownEnv{name: name, closest: closestName(name, known)})
	}
	return out
}

// closestName is the name of known nearest to name in edits, if it is within a third
// of name's length after the prefix (so ORTHANC_MAX_SESION finds ORTHANC_MAX_SESSIONS,
// and ORTHANC_COLOUR finds nothing).
func closestName(name string, known []string) string {
	best, bestD := "", len(name)
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	if bestD > max(1, (len(name)-len(envPrefix))/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes (the names are ASCII).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// warnUnknownEnv logs one line for each unknown ORTHANC_ variable of environ.
func warnUnknownEnv(log *slog.Logger, environ, known []string) {
	for _, u := range unknownEnvs(environ, known) {
		if u.closest != "" {
			log.Warn("unknown variable ignored", "variable", u.name, "did_you_mean", u.closest)
			continue
		}
		log.Warn("unknown variable ignored", "variable", u.name)
	}
}
