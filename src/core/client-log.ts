/** Mirrors a message meant for the MCP client into the server's own stderr log, at the nearest level. */
import type { Logger } from "./log.ts";
import type { ClientLogLevel } from "./tool.ts";

export function logToStderr(
  log: Logger,
  level: ClientLogLevel,
  logger: string,
  message: string,
  data?: Record<string, unknown>,
): void {
  const fields = { logger, ...data };
  if (level === "debug") log.debug(message, fields);
  else if (level === "info" || level === "notice") log.info(message, fields);
  else if (level === "warning") log.warn(message, fields);
  else log.error(message, fields);
}
