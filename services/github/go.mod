module ghops.dev/services/github

go 1.26.7

require (
	ghops.dev/gen v0.0.0
	ghops.dev/services/fakehub v0.0.0
)

replace (
	ghops.dev/gen => ../../gen
	ghops.dev/services/fakehub => ../fakehub
)
