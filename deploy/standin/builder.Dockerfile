# A stand-in for golang:1.26 where no registry is reachable: the host's Go
# toolchain (statically linked) on an empty image, with CA certificates for
# the Go module proxy. Context: a directory holding go/ (a copy of
# /usr/local/go) and ca-certificates.crt. Only exec-form RUN works on it.
FROM scratch
COPY go/ /usr/local/go/
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV PATH=/usr/local/go/bin \
    HOME=/root \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
WORKDIR /tmp
WORKDIR /src
