module ghops.dev/redact

go 1.26.7
