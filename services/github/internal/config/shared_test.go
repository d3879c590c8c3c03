package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestLoadShared(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults: in process", check: func(t *testing.T, c Config) {
			if c.RedisURL != "" || c.RedisTimeout != 50*time.Millisecond || c.BudgetFailClosed || c.GitHubConcurrency != 50 ||
				c.WritesPerMinute != 80 || c.CacheTTL != 24*time.Hour || c.CacheEntryBytes != 1<<20 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "env fallbacks", env: map[string]string{
			"GHOPS_REDIS_URL": "redis://127.0.0.1:6379/2", "GHOPS_REDIS_TIMEOUT": "20ms", "GHOPS_BUDGET_FAIL_OPEN": "false",
			"GHOPS_GITHUB_CONCURRENCY": "10", "GHOPS_GITHUB_WRITES_PER_MINUTE": "-1", "GHOPS_CACHE_TTL": "1h", "GHOPS_CACHE_ENTRY_BYTES": "4096",
		}, check: func(t *testing.T, c Config) {
			if c.RedisURL != "redis://127.0.0.1:6379/2" || c.RedisTimeout != 20*time.Millisecond || !c.BudgetFailClosed || c.GitHubConcurrency != 10 ||
				c.WritesPerMinute != -1 || c.CacheTTL != time.Hour || c.CacheEntryBytes != 4096 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "flags win", args: []string{"-redis-url", "rediss://r.example:6380/0", "-budget-fail-open=true", "-github-concurrency", "7"},
			env: map[string]string{"GHOPS_REDIS_URL": "redis://127.0.0.1:6379/2", "GHOPS_BUDGET_FAIL_OPEN": "false", "GHOPS_GITHUB_CONCURRENCY": "10"},
			check: func(t *testing.T, c Config) {
				if c.RedisURL != "rediss://r.example:6380/0" || c.BudgetFailClosed || c.GitHubConcurrency != 7 {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "not a Redis URL", args: []string{"-redis-url", "http://127.0.0.1:6379"}, wantErr: "-redis-url"},
		{name: "a bad Redis URL is not echoed (it may hold a password)", args: []string{"-redis-url", "redis://:s3cret@"}, wantErr: "-redis-url"},
		{name: "zero concurrency", args: []string{"-github-concurrency", "0"}, wantErr: "-github-concurrency"},
		{name: "bad writes", args: []string{"-github-writes-per-minute", "lots"}, wantErr: "-github-writes-per-minute"},
		{name: "no entry bytes off switch", args: []string{"-cache-entry-bytes", "-1"}, wantErr: "-cache-entry-bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error shows the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
