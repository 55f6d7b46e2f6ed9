# mcpkit over Streamable HTTP in a container: the Linux binary on a minimal glibc base, as a
# non-root user. Build the binary first (`bun run build`, or a release's linux-x64 one), then:
#   docker build -t mcpkit .
#   docker run -p 8080:8080 mcpkit --auth jwt --issuer https://login.example.com --public-url https://mcp.example.com
# Serving 0.0.0.0 without authorization is refused: pass --auth jwt|oauth, or --gateway-auth when a
# gateway in front authorizes every request.
FROM gcr.io/distroless/base-debian12:nonroot
COPY --chmod=0755 dist/mcpkit /usr/local/bin/mcpkit
USER nonroot
ENV MCPKIT_HTTP=0.0.0.0:8080
EXPOSE 8080
# The image has no curl: the binary asks its own /healthz (exit 0 on 200).
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/mcpkit", "health", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/mcpkit"]
