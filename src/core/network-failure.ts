/**
 * Why an upstream could not be reached, in words a person (or a model) can act on, and what to
 * check: one wording for every toolset, each passing the hint that names its own flag
 * (`check --oj-base-url (OJ_BASE_URL)`, `check --boj-base-url (BOJ_BASE_URL)`).
 */
export function networkFailure(code: string, flagHint: string): [why: string, hint: string] {
  switch (code) {
    case "ECONNREFUSED":
      return ["connection refused", `${flagHint} and that the server is running`];
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return ["host name not found", `${flagHint} and the network's DNS`];
    case "ECONNRESET":
    case "EPIPE":
      return ["the connection closed before a complete answer", `${flagHint} and that the server is running`];
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return ["host unreachable", `${flagHint} and the network (proxy, firewall)`];
    case "Malformed_HTTP_Response":
      return ["the answer is not HTTP", `${flagHint}: it must name the server's HTTP port`];
  }
  if (/^(EPROTO|ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_CERT)/.test(code)) {
    return [
      `TLS failed: ${code}`,
      `${flagHint}: http or https must match the server, and its certificate must be trusted`,
    ];
  }
  return [code === "" ? "network error" : `network error ${code}`, flagHint];
}

/** A host name that does not resolve: asking again a moment later will not change the answer. */
export function isNameNotFound(code: string): boolean {
  return code === "ENOTFOUND" || code === "EAI_NONAME";
}
