package kubernetes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"ghops.dev/infra/redisbin"
)

// objects are the decoded manifests, by kind.
type objects struct {
	namespaces  []*corev1.Namespace
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	policies    []*networkingv1.NetworkPolicy
}

// decode splits a multi-document YAML stream and decodes every document
// strictly (an unknown or misspelt field is an error) into its API type.
func decode(data []byte) (*objects, error) {
	var o objects
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return &o, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, err
		}
		var target any
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 Namespace":
			v := &corev1.Namespace{}
			o.namespaces, target = append(o.namespaces, v), v
		case "apps/v1 Deployment":
			v := &appsv1.Deployment{}
			o.deployments, target = append(o.deployments, v), v
		case "v1 Service":
			v := &corev1.Service{}
			o.services, target = append(o.services, v), v
		case "policy/v1 PodDisruptionBudget":
			v := &policyv1.PodDisruptionBudget{}
			o.pdbs, target = append(o.pdbs, v), v
		case "autoscaling/v2 HorizontalPodAutoscaler":
			v := &autoscalingv2.HorizontalPodAutoscaler{}
			o.hpas, target = append(o.hpas, v), v
		case "networking.k8s.io/v1 NetworkPolicy":
			v := &networkingv1.NetworkPolicy{}
			o.policies, target = append(o.policies, v), v
		default:
			return nil, fmt.Errorf("unexpected %s %s", tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, target); err != nil {
			return nil, fmt.Errorf("%s: %w", tm.Kind, err)
		}
	}
}

// build runs the kustomization in this directory on an in-memory copy of
// it, so that it can only use files that are here.
func build(t *testing.T) []byte {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		data, err := os.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile(filepath.Join("/base", e.Name()), data); err != nil {
			t.Fatal(err)
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/base")
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEachFileDecodesStrictly decodes every manifest file on its own.
func TestEachFileDecodesStrictly(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "kustomization.yaml" {
			continue
		}
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decode(data); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStrictDecodingCatchesMistakes shows that decode refuses what a
// lenient decoder would drop silently.
func TestStrictDecodingCatchesMistakes(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"misspelt field", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {selectr: {a: b}}\n", "selectr"},
		{"wrong type", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: two}\n", "replicas"},
		{"unknown kind", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "unexpected v1 Pod"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decode([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decode = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestKustomization builds the kustomization and checks the objects it
// yields and how they refer to each other.
func TestKustomization(t *testing.T) {
	o, err := decode(build(t))
	if err != nil {
		t.Fatalf("decoding the build: %v", err)
	}
	if len(o.namespaces) != 1 || len(o.deployments) != 3 || len(o.services) != 3 || len(o.pdbs) != 2 || len(o.hpas) != 2 || len(o.policies) != 2 {
		t.Fatalf("built %d namespaces, %d deployments, %d services, %d PDBs, %d HPAs, %d network policies",
			len(o.namespaces), len(o.deployments), len(o.services), len(o.pdbs), len(o.hpas), len(o.policies))
	}
	deploy := map[string]*appsv1.Deployment{}
	for _, d := range o.deployments {
		deploy[d.Name] = d
	}
	gateway, github, redisDeploy := deploy["ghops-gateway"], deploy["ghops-github"], deploy["ghops-redis"]
	if gateway == nil || github == nil || redisDeploy == nil {
		t.Fatalf("deployments %v", deploy)
	}
	policies := map[string]*networkingv1.NetworkPolicy{}
	for _, p := range o.policies {
		policies[p.Name] = p
	}
	// matching returns the deployments whose pods sel selects.
	matching := func(sel labels.Selector) []string {
		var names []string
		for _, d := range o.deployments {
			if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				names = append(names, d.Name)
			}
		}
		return names
	}
	selectorOf := func(t *testing.T, ls *metav1.LabelSelector) labels.Selector {
		t.Helper()
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}

	t.Run("namespace and image", func(t *testing.T) {
		if o.namespaces[0].Name != "ghops" || o.namespaces[0].Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
			t.Errorf("namespace %+v", o.namespaces[0].ObjectMeta)
		}
		for _, d := range o.deployments {
			if d.Namespace != "ghops" || d.Labels["app.kubernetes.io/part-of"] != "ghops" {
				t.Errorf("%s: namespace %q, labels %v", d.Name, d.Namespace, d.Labels)
			}
			want := "ghops:dev"
			if d == redisDeploy {
				want = "redis:7.4-alpine"
			}
			if img := d.Spec.Template.Spec.Containers[0].Image; img != want {
				t.Errorf("%s: image %q, want %s from the kustomization", d.Name, img, want)
			}
		}
	})

	for _, d := range o.deployments {
		t.Run("deployment "+d.Name, func(t *testing.T) {
			if names := matching(selectorOf(t, d.Spec.Selector)); len(names) != 1 || names[0] != d.Name {
				t.Errorf("selector picks the pods of %v", names)
			}
			switch {
			case d == redisDeploy:
				// Two independent Redis pods would split the shared state.
				if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
					t.Error("Redis is not exactly 1 replica")
				}
			case d.Spec.Replicas == nil || *d.Spec.Replicas < 2:
				t.Error("fewer than 2 replicas")
			}
			pod := d.Spec.Template.Spec
			if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
				t.Error("the service account token is mounted")
			}
			psc := pod.SecurityContext
			if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 ||
				psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("pod security context %+v", psc)
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers", len(pod.Containers))
			}
			c := pod.Containers[0]
			sc := c.SecurityContext
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil ||
				!*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
				t.Errorf("container security context %+v", sc)
			}
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("resources %+v", c.Resources)
			}
			if c.ReadinessProbe == nil || c.LivenessProbe == nil {
				t.Fatal("no readiness or liveness probe")
			}
			for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
				switch {
				case p.HTTPGet != nil:
					if !declared(c, p.HTTPGet.Port) {
						t.Errorf("%s probe port %s is not a container port", name, p.HTTPGet.Port.String())
					}
				case p.GRPC != nil:
					if !declared(c, intstr.FromInt32(p.GRPC.Port)) {
						t.Errorf("%s probe port %d is not a container port", name, p.GRPC.Port)
					}
				case p.TCPSocket != nil && d == redisDeploy:
					if !declared(c, p.TCPSocket.Port) {
						t.Errorf("%s probe port %s is not a container port", name, p.TCPSocket.Port.String())
					}
				default:
					t.Errorf("%s probe is neither HTTP nor gRPC (nor TCP, for Redis)", name)
				}
			}
			if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds < 20 {
				t.Error("termination grace period below the binaries' drain bounds")
			}
		})
	}

	t.Run("probes", func(t *testing.T) {
		gc := gateway.Spec.Template.Spec.Containers[0]
		if gc.ReadinessProbe.HTTPGet == nil || gc.ReadinessProbe.HTTPGet.Path != "/readyz" || gc.LivenessProbe.HTTPGet == nil || gc.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("gateway probes %+v %+v", gc.ReadinessProbe, gc.LivenessProbe)
		}
		sc := github.Spec.Template.Spec.Containers[0]
		if sc.ReadinessProbe.GRPC == nil || sc.LivenessProbe.GRPC == nil || env(sc, "GHOPS_GITHUB_ADDR") != "0.0.0.0:"+strconv.Itoa(int(sc.ReadinessProbe.GRPC.Port)) {
			t.Errorf("service probes %+v, listen %q", sc.ReadinessProbe, env(sc, "GHOPS_GITHUB_ADDR"))
		}
		if env(gc, "GHOPS_GATEWAY_ADDR") != "0.0.0.0:"+strconv.Itoa(int(port(gc, "http"))) {
			t.Errorf("gateway listens on %q, not its http port", env(gc, "GHOPS_GATEWAY_ADDR"))
		}
	})

	for _, s := range o.services {
		t.Run("service "+s.Name, func(t *testing.T) {
			names := matching(labels.SelectorFromSet(s.Spec.Selector))
			if len(names) != 1 || names[0] != s.Name {
				t.Fatalf("selector picks %v", names)
			}
			c := deploy[names[0]].Spec.Template.Spec.Containers[0]
			for _, p := range s.Spec.Ports {
				if !declared(c, p.TargetPort) {
					t.Errorf("port %s targets %s, not a container port", p.Name, p.TargetPort.String())
				}
			}
		})
	}

	t.Run("the gateway dials the service's Service", func(t *testing.T) {
		host, p, err := net.SplitHostPort(env(gateway.Spec.Template.Spec.Containers[0], "GHOPS_SERVICE_ADDR"))
		if err != nil {
			t.Fatal(err)
		}
		var svc *corev1.Service
		for _, s := range o.services {
			if s.Name == host {
				svc = s
			}
		}
		if svc == nil {
			t.Fatalf("no Service %q", host)
		}
		if names := matching(labels.SelectorFromSet(svc.Spec.Selector)); len(names) != 1 || names[0] != "ghops-github" {
			t.Errorf("Service %s selects %v", host, names)
		}
		found := false
		for _, sp := range svc.Spec.Ports {
			found = found || strconv.Itoa(int(sp.Port)) == p
		}
		if !found {
			t.Errorf("Service %s has no port %s", host, p)
		}
		if svc.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Error("the service's Service is not headless: one gRPC connection would pin one pod")
		}
	})

	for _, p := range o.pdbs {
		t.Run("pdb "+p.Name, func(t *testing.T) {
			names := matching(selectorOf(t, p.Spec.Selector))
			if len(names) != 1 || names[0] != p.Name {
				t.Errorf("selects %v", names)
			}
			if p.Spec.MinAvailable == nil || p.Spec.MinAvailable.IntValue() < 1 {
				t.Errorf("minAvailable %v", p.Spec.MinAvailable)
			}
		})
	}
	for _, h := range o.hpas {
		t.Run("hpa "+h.Name, func(t *testing.T) {
			ref := h.Spec.ScaleTargetRef
			if ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || deploy[ref.Name] == nil || ref.Name != h.Name {
				t.Errorf("scales %+v", ref)
			}
			if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 2 || h.Spec.MaxReplicas < *h.Spec.MinReplicas || len(h.Spec.Metrics) == 0 {
				t.Errorf("spec %+v", h.Spec)
			}
			if d := deploy[ref.Name]; d != nil && d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().IsZero() {
				t.Error("CPU utilization needs a CPU request")
			}
		})
	}

	t.Run("only the gateway reaches the service", func(t *testing.T) {
		np := policies["ghops-github-from-gateway"]
		if np == nil {
			t.Fatalf("no policy ghops-github-from-gateway among %v", policies)
		}
		if names := matching(selectorOf(t, &np.Spec.PodSelector)); len(names) != 1 || names[0] != "ghops-github" {
			t.Fatalf("policy applies to %v", names)
		}
		if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(np.Spec.Ingress) != 1 {
			t.Fatalf("policy %+v", np.Spec)
		}
		rule := np.Spec.Ingress[0]
		if len(rule.From) != 1 || rule.From[0].PodSelector == nil || rule.From[0].NamespaceSelector != nil || rule.From[0].IPBlock != nil {
			t.Fatalf("from %+v", rule.From)
		}
		if names := matching(selectorOf(t, rule.From[0].PodSelector)); len(names) != 1 || names[0] != "ghops-gateway" {
			t.Errorf("ingress allowed from %v", names)
		}
		grpcPort := port(github.Spec.Template.Spec.Containers[0], "grpc")
		if len(rule.Ports) != 1 || rule.Ports[0].Port == nil || rule.Ports[0].Port.IntValue() != int(grpcPort) {
			t.Errorf("ports %+v, want only %d", rule.Ports, grpcPort)
		}
	})

	t.Run("the replicas share their state through the one Redis", func(t *testing.T) {
		rc := redisDeploy.Spec.Template.Spec.Containers[0]
		redisPort := port(rc, "redis")
		var urls []string
		for _, d := range []*appsv1.Deployment{gateway, github} {
			raw := env(d.Spec.Template.Spec.Containers[0], "GHOPS_REDIS_URL")
			u, err := url.Parse(raw)
			if err != nil || u.Scheme != "redis" || u.Hostname() == "" {
				t.Errorf("%s: GHOPS_REDIS_URL %q is not a redis:// URL", d.Name, raw)
				continue
			}
			urls = append(urls, raw)
			var svc *corev1.Service
			for _, s := range o.services {
				if s.Name == u.Hostname() {
					svc = s
				}
			}
			if svc == nil {
				t.Errorf("%s: GHOPS_REDIS_URL names no Service (%q)", d.Name, u.Hostname())
				continue
			}
			if names := matching(labels.SelectorFromSet(svc.Spec.Selector)); len(names) != 1 || names[0] != "ghops-redis" {
				t.Errorf("%s: Service %s selects %v, not Redis", d.Name, svc.Name, names)
			}
			found := false
			for _, sp := range svc.Spec.Ports {
				found = found || (strconv.Itoa(int(sp.Port)) == u.Port() && (sp.TargetPort.IntValue() == int(redisPort) || sp.TargetPort.StrVal == "redis"))
			}
			if !found {
				t.Errorf("%s: Service %s has no port %s to Redis's %d", d.Name, svc.Name, u.Port(), redisPort)
			}
		}
		if len(urls) == 2 && urls[0] != urls[1] {
			t.Errorf("the gateway uses %q, the service %q: one Redis, or no sharing", urls[0], urls[1])
		}
		np := policies["ghops-redis-from-ghops"]
		if np == nil {
			t.Fatal("no NetworkPolicy for Redis")
		}
		if names := matching(selectorOf(t, &np.Spec.PodSelector)); len(names) != 1 || names[0] != "ghops-redis" {
			t.Fatalf("policy applies to %v", names)
		}
		if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].Ports) != 1 || np.Spec.Ingress[0].Ports[0].Port.IntValue() != int(redisPort) {
			t.Fatalf("ingress %+v, want only port %d", np.Spec.Ingress, redisPort)
		}
		var from []string
		for _, peer := range np.Spec.Ingress[0].From {
			if peer.PodSelector == nil || peer.NamespaceSelector != nil || peer.IPBlock != nil {
				t.Fatalf("peer %+v is not a pod of this namespace", peer)
			}
			from = append(from, matching(selectorOf(t, peer.PodSelector))...)
		}
		if strings.Join(from, ",") != "ghops-gateway,ghops-github" && strings.Join(from, ",") != "ghops-github,ghops-gateway" {
			t.Errorf("Redis reachable from %v, want the gateway and the service only", from)
		}
		// Nothing to keep: no persistence, and the writable /data is an
		// emptyDir (the root filesystem is read-only, checked above).
		args := strings.Join(rc.Args, " ")
		for _, want := range []string{`--save  --appendonly no`, "--maxmemory "} {
			if !strings.Contains(args, want) {
				t.Errorf("redis args %q lack %q", args, want)
			}
		}
	})

	t.Run("secrets are documented as the operator's", func(t *testing.T) {
		doc, err := os.ReadFile("README.md")
		if err != nil {
			t.Fatal(err)
		}
		refs := 0
		for _, d := range o.deployments {
			for _, e := range d.Spec.Template.Spec.Containers[0].Env {
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					continue
				}
				refs++
				ref := e.ValueFrom.SecretKeyRef
				want := regexp.MustCompile(`kubectl -n ghops create secret generic ` + regexp.QuoteMeta(ref.Name) + ` --from-literal=` + regexp.QuoteMeta(ref.Key) + `=`)
				if !want.Match(doc) {
					t.Errorf("%s: secret %s key %s is not created in README.md", d.Name, ref.Name, ref.Key)
				}
				if ref.Optional != nil && *ref.Optional {
					t.Errorf("%s: secret %s is optional", d.Name, ref.Name)
				}
			}
		}
		for _, want := range []string{"GITHUB_TOKEN", "GHOPS_SESSION_SECRET"} {
			found := false
			for _, d := range o.deployments {
				for _, e := range d.Spec.Template.Spec.Containers[0].Env {
					found = found || (e.Name == want && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil)
				}
			}
			if !found {
				t.Errorf("%s does not come from a Secret", want)
			}
		}
		if refs != 2 {
			t.Errorf("%d secret references", refs)
		}
		files := 0
		for _, d := range o.deployments {
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Secret == nil {
					continue
				}
				files++
				want := regexp.MustCompile(`kubectl -n ghops create secret generic ` + regexp.QuoteMeta(v.Secret.SecretName) + ` --from-file=`)
				if !want.Match(doc) {
					t.Errorf("%s: secret volume %s is not created in README.md", d.Name, v.Secret.SecretName)
				}
			}
		}
		if files != 3 {
			t.Errorf("%d secret volumes, want the gateway's policy and the service secret in both", files)
		}
	})

	t.Run("the service authenticates its callers", func(t *testing.T) {
		// Both read GHOPS_SERVICE_SECRET_FILE from a read-only mount of the
		// same Secret, and the service is never told to run without it.
		var secrets []string
		for _, d := range []*appsv1.Deployment{github, gateway} {
			c := d.Spec.Template.Spec.Containers[0]
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			if env["GHOPS_GITHUB_INSECURE_NO_AUTH"] != "" {
				t.Errorf("%s: runs without caller authentication", d.Name)
			}
			file := env["GHOPS_SERVICE_SECRET_FILE"]
			found := ""
			for _, m := range c.VolumeMounts {
				if !m.ReadOnly || file == "" || !strings.HasPrefix(file, m.MountPath+"/") {
					continue
				}
				for _, v := range d.Spec.Template.Spec.Volumes {
					if v.Name == m.Name && v.Secret != nil {
						found = v.Secret.SecretName
					}
				}
			}
			if found == "" {
				t.Errorf("%s: GHOPS_SERVICE_SECRET_FILE %q is not a file of a read-only Secret mount", d.Name, file)
			}
			secrets = append(secrets, found)
		}
		if len(secrets) == 2 && secrets[0] != secrets[1] {
			t.Errorf("the service reads Secret %q, the gateway %q", secrets[0], secrets[1])
		}
	})

	t.Run("the gateway authenticates", func(t *testing.T) {
		c := gateway.Spec.Template.Spec.Containers[0]
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		pol := env["GHOPS_POLICY"]
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || (m.ReadOnly && pol != "" && strings.HasPrefix(pol, m.MountPath+"/"))
		}
		if !mounted {
			t.Errorf("GHOPS_POLICY %q is not a file of a read-only mount", pol)
		}
		if env["GHOPS_INSECURE_NO_AUTH"] != "" {
			t.Error("the gateway runs without authentication")
		}
		if !strings.Contains(env["GHOPS_ALLOWED_HOSTS"], "ghops-gateway.ghops.svc") {
			t.Errorf("GHOPS_ALLOWED_HOSTS %q lacks the Service's name", env["GHOPS_ALLOWED_HOSTS"])
		}
	})
}

// declared reports whether p (a number or a name) is a port of c.
func declared(c corev1.Container, p intstr.IntOrString) bool {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && cp.Name == p.StrVal) || (p.Type == intstr.Int && cp.ContainerPort == p.IntVal) {
			return true
		}
	}
	return false
}

// port returns the number of c's port called name (0 if none).
func port(c corev1.Container, name string) int32 {
	for _, cp := range c.Ports {
		if cp.Name == name {
			return cp.ContainerPort
		}
	}
	return 0
}

// env returns the literal value of c's variable name.
func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// TestRedisArgsStartRedis runs Debian's redis-server with the manifest's
// command and arguments (on a free loopback port, in a temporary directory
// made read-only for a non-root user, as the container's root filesystem
// is) and checks that it answers PING: a misspelt option would otherwise
// only show in the cluster.
func TestRedisArgsStartRedis(t *testing.T) {
	bin := redisbin.Path(t)
	o, err := decode(build(t))
	if err != nil {
		t.Fatal(err)
	}
	var c *corev1.Container
	for _, d := range o.deployments {
		if d.Name == "ghops-redis" {
			c = &d.Spec.Template.Spec.Containers[0]
		}
	}
	if c == nil || len(c.Command) != 1 || c.Command[0] != "redis-server" {
		t.Fatalf("redis container %+v", c)
	}
	pingRedis(t, bin, c.Args)
}

// pingRedis starts bin with args plus a loopback port and a read-only
// working directory, and waits for +PONG.
func pingRedis(t *testing.T, bin string, args []string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, p, _ := net.SplitHostPort(addr)
	_ = l.Close()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	cmd := exec.Command(bin, append(slices.Clone(args), "--port", p, "--bind", "127.0.0.1", "--dir", dir)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			buf := make([]byte, 7)
			_, err = io.ReadFull(c, buf)
			c.Close()
			if err == nil && string(buf) == "+PONG\r\n" {
				return
			}
		}
		if i == 100 {
			t.Fatalf("redis-server %q never answered PING: %v\n%s", args, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
