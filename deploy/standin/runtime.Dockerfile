# A stand-in for gcr.io/distroless/static-debian12:nonroot where no
# registry is reachable: an empty image with what the ghops binaries need
# from it, the nonroot user (uid 65532), CA certificates and /tmp. Context:
# this directory, plus ca-certificates.crt copied in.
FROM scratch
COPY passwd /etc/passwd
COPY group /etc/group
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
WORKDIR /tmp
WORKDIR /home/nonroot
USER 65532:65532
