package ops

import (
	"net/url"
	"testing"
)

func TestGraphQLURL(t *testing.T) {
	tests := []struct{ name, base, want string }{
		{name: "github.com", base: "https://api.github.com/", want: "https://api.github.com/graphql"},
		{name: "enterprise server", base: "https://ghe.example.com/api/v3/", want: "https://ghe.example.com/api/graphql"},
		{name: "enterprise without slash", base: "http://ghe.example.com:8080/api/v3", want: "http://ghe.example.com:8080/api/graphql"},
		{name: "fakehub root", base: "http://127.0.0.1:4010/", want: "http://127.0.0.1:4010/graphql"},
		{name: "prefixed proxy", base: "http://proxy.test/github/", want: "http://proxy.test/github/graphql"},
		{name: "query dropped", base: "http://127.0.0.1:1/?x=1", want: "http://127.0.0.1:1/graphql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := url.Parse(tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if got := GraphQLURL(base).String(); got != tt.want {
				t.Errorf("GraphQLURL(%s) = %s, want %s", tt.base, got, tt.want)
			}
			if base.String() != tt.base {
				t.Errorf("base modified: %s", base)
			}
		})
	}
}
