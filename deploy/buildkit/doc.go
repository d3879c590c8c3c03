// Package buildkit tests scripts/buildkit.sh, the BuildKit builder finder of
// `make image` and `make compose-test`, and scripts/standins.sh, which builds
// the stand-in base images with it. With the buildx plugin it builds
// with it, with a CLI that has BuildKit built in it uses that, and with
// neither (or no engine, or no docker at all) it says what to install and
// exits 3 instead of failing on the Dockerfile's first cache mount. The
// docker it runs is a stand-in script on PATH, since this test cannot take
// BuildKit away from a real Docker installation.
package buildkit
