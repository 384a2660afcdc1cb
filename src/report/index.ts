/**
 * Renderers of a run summary, returning strings: terminal table, Markdown, JSON. The HTML
 * report lives in ./html.
 *
 * @module
 */

export * from './html/index.js';
export { renderRunJson } from './json.js';
export { renderRunMarkdown } from './markdown.js';
export { buildRunView, describeSloText, type ErrorView, type RunView, type ViewTable } from './run-view.js';
export { type RunRenderOptions, renderRunTable } from './terminal.js';
