package config

import (
	"flag"
	"fmt"
	"strconv"
	"time"
)

// sharedFlags are the flags of the state shared through Redis (the cache
// and the GitHub budget), parsed as text and applied after flag.Parse.
type sharedFlags struct {
	redisURL, redisTimeout, concurrency, writes, cacheTTL, entryBytes string
	failOpen                                                          bool
}

func (f *sharedFlags) register(fs *flag.FlagSet, env func(k, def string) string, envBool func(string) bool) {
	fs.StringVar(&f.redisURL, "redis-url", env("GHOPS_REDIS_URL", ""), "Redis shared by the replicas for the cache and each token's GitHub budget, redis://host:port/db; in process when empty (env GHOPS_REDIS_URL)")
	fs.StringVar(&f.redisTimeout, "redis-timeout", env("GHOPS_REDIS_TIMEOUT", DefaultRedisTimeout.String()), "bound on each Redis operation (env GHOPS_REDIS_TIMEOUT)")
	failOpen := true
	if env("GHOPS_BUDGET_FAIL_OPEN", "") != "" {
		failOpen = envBool("GHOPS_BUDGET_FAIL_OPEN")
	}
	fs.BoolVar(&f.failOpen, "budget-fail-open", failOpen, "with Redis down, each replica keeps its own GitHub budget (true) or calls are refused (false) (env GHOPS_BUDGET_FAIL_OPEN)")
	fs.StringVar(&f.concurrency, "github-concurrency", env("GHOPS_GITHUB_CONCURRENCY", strconv.Itoa(DefaultGitHubConcurrency)), "GitHub requests in flight per token across replicas, -1 for no cap; with -redis-url (env GHOPS_GITHUB_CONCURRENCY)")
	fs.StringVar(&f.writes, "github-writes-per-minute", env("GHOPS_GITHUB_WRITES_PER_MINUTE", strconv.Itoa(DefaultWritesPerMinute)), "writes per token per minute across replicas, -1 for no pacing; with -redis-url (env GHOPS_GITHUB_WRITES_PER_MINUTE)")
	fs.StringVar(&f.cacheTTL, "cache-ttl", env("GHOPS_CACHE_TTL", DefaultCacheTTL.String()), "life of a cached GitHub answer in Redis (env GHOPS_CACHE_TTL)")
	fs.StringVar(&f.entryBytes, "cache-entry-bytes", env("GHOPS_CACHE_ENTRY_BYTES", strconv.Itoa(DefaultCacheEntryBytes)), "largest GitHub answer kept in Redis, in bytes (env GHOPS_CACHE_ENTRY_BYTES)")
}

// apply parses the values into c, returning every error.
func (f *sharedFlags) apply(c *Config) []error {
	var errs []error
	c.RedisURL = f.redisURL
	c.BudgetFailClosed = !f.failOpen
	dur := func(name, v string) time.Duration {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("config: -%s: %q is not a positive duration such as 50ms", name, v))
		}
		return d
	}
	count := func(name, v string, allowOff bool) int {
		n, err := strconv.Atoi(v)
		if err != nil || n == 0 || n < -1 || (n == -1 && !allowOff) {
			want := "a positive whole number"
			if allowOff {
				want += " or -1"
			}
			errs = append(errs, fmt.Errorf("config: -%s: %q is not %s", name, v, want))
		}
		return n
	}
	c.RedisTimeout = dur("redis-timeout", f.redisTimeout)
	c.CacheTTL = dur("cache-ttl", f.cacheTTL)
	c.GitHubConcurrency = count("github-concurrency", f.concurrency, true)
	c.WritesPerMinute = count("github-writes-per-minute", f.writes, true)
	c.CacheEntryBytes = count("cache-entry-bytes", f.entryBytes, false)
	return errs
}
