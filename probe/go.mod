module ghops.dev/probe

go 1.26.7
