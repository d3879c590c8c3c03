package fakehub

// New builds a hub, seeding the dataset named by cfg.Seed ("" for none, "demo").
func New(cfg Config) (*Hub, error) {
	return newHub(cfg, []func(*Hub, addFunc){
		(*Hub).registerCore,
		(*Hub).registerSearch,
		(*Hub).registerIssues,
		(*Hub).registerGitData,
		(*Hub).registerPulls,
		(*Hub).registerGraphQL,
		(*Hub).registerActions,
	}, (*Hub).seedDemo)
}
