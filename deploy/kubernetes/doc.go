// Package kubernetes holds the Kubernetes manifests of ghops (a kustomize
// base in this directory) and their offline test: every manifest decodes
// strictly into the Kubernetes API types, the kustomization builds, and the
// objects refer to each other correctly (selectors, ports, probes, secrets).
package kubernetes
