// Module hooks (node:module register) that append the URL of every module loaded to the file
// named by GOODPUT_MODULE_TRACE, one a line, as it loads: the list survives the process being stopped.
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  if (process.env.GOODPUT_MODULE_TRACE) appendFileSync(process.env.GOODPUT_MODULE_TRACE, `${url}\n`);
  return next(url, context);
}
