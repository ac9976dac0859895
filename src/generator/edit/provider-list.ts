import { Refusal } from '../errors.js';
import { authModuleDir } from '../paths.js';
import type { TypeScriptApi } from '../typescript-api.js';
import type ts from 'typescript';

/** What the CLI needs to know about a project's `src/auth/config.ts`. */
export interface AuthConfigInfo {
  /** The `basePath` string, when it is a literal. */
  basePath: string | undefined;
  /** Normalised module of each provider in the list that comes from an import (`core/providers/oidc`). */
  providerModules: string[];
  /** Whether the config object sets `adapter`. */
  hasAdapter: boolean;
  /**
   * Normalised module of the adapter's factory (`core/adapters/sqlite`) when `adapter` is a call of an imported
   * function (`SqliteAdapter()`), an imported value, or a top-level constant made by such a call.
   */
  adapterModule: string | undefined;
  /** Normalised module of each element of `features: [...]` that is a call of an imported function (`TwoFactor()`). */
  featureModules: string[];
}

/** An adapter to set: the factory (a named export of its module) and the property value. */
export interface AdapterInsertion {
  importName: string;
  importPath: string;
  snippet: string;
}

/** A provider to add: the factory import and the list element. */
export interface ProviderInsertion {
  importName: string;
  importPath: string;
  snippet: string;
}

/** Result of an edit: the new text, and whether anything changed. */
export interface ProviderListEdit {
  content: string;
  changed: boolean;
}

interface ParsedConfig {
  /** The config's project path, for messages. */
  path: string;
  sourceFile: ts.SourceFile;
  configObject: ts.ObjectLiteralExpression;
  providers: ts.ArrayLiteralExpression | undefined;
  /** Local name → module specifier of every value import. */
  imports: Map<string, string>;
  topLevelNames: Set<string>;
  /** Initializers of top-level `const` declarations, by name. */
  topLevelConstants: Map<string, ts.Expression>;
  /** The `adapter` property of `authConfig`, when it has one. */
  adapter: ts.ObjectLiteralElementLike | undefined;
  /** The `features` property of `authConfig` and its array literal, when it has them. */
  features: { property: ts.PropertyAssignment; array: ts.ArrayLiteralExpression } | undefined;
  /** The statements that bring in a module, `import … from` or (CommonJS) `const … = require(…)`, with the module. */
  moduleStatements: { statement: ts.Statement; module: string; specifier: ts.StringLiteral }[];
  /** How the file brings in modules: `import` (ESM, TypeScript) or `require` (a CommonJS config.js). */
  style: 'import' | 'require';
}

/** `require('m')` or `require('m').default`: the module, and whether its `default` is taken. */
function requireOf(api: TypeScriptApi, expression: ts.Expression | undefined): { specifier: ts.StringLiteral; isDefault: boolean } | undefined {
  if (!expression) return undefined;
  let call = expression;
  let isDefault = false;
  if (api.isPropertyAccessExpression(call) && call.name.text === 'default') {
    call = call.expression;
    isDefault = true;
  }
  if (!api.isCallExpression(call) || !api.isIdentifier(call.expression) || call.expression.text !== 'require' || call.arguments.length !== 1) return undefined;
  const [argument] = call.arguments;
  return argument && api.isStringLiteral(argument) ? { specifier: argument, isDefault } : undefined;
}

/** The config of the default layout, for callers that do not say where theirs is. */
const defaultConfigPath = `${authModuleDir}/config.ts`;

interface TextEdit {
  position: number;
  deleteCount: number;
  text: string;
}


function unsupported(path: string, message: string): Refusal {
  return new Refusal('unsupported-edit', `${path}: ${message}`, {
    hint: 'Edit the providers list by hand, or pass --force to regenerate the file.',
  });
}

/** `./core/providers/oidc.js` and `./core/providers/oidc` are the same module. */
export function normaliseModule(specifier: string): string {
  return specifier.replace(/^\.\//, '').replace(/\.(js|ts|mjs|mts)$/, '');
}

function unwrap(api: TypeScriptApi, expression: ts.Expression): ts.Expression {
  let current = expression;
  while (api.isAsExpression(current) || api.isSatisfiesExpression(current) || api.isParenthesizedExpression(current)) {
    current = current.expression;
  }
  return current;
}

function propertyName(api: TypeScriptApi, name: ts.PropertyName): string | undefined {
  if (api.isIdentifier(name) || api.isStringLiteral(name)) return name.text;
  return undefined;
}

function parseConfig(api: TypeScriptApi, source: string, path: string): ParsedConfig {
  const sourceFile = api.createSourceFile('config.ts', source, api.ScriptTarget.Latest, true, api.ScriptKind.TS);
  const imports = new Map<string, string>();
  const topLevelNames = new Set<string>();
  const topLevelConstants = new Map<string, ts.Expression>();
  let configObject: ts.ObjectLiteralExpression | undefined;
  const moduleStatements: ParsedConfig['moduleStatements'] = [];
  for (const statement of sourceFile.statements) {
    if (api.isImportDeclaration(statement) && api.isStringLiteral(statement.moduleSpecifier)) moduleStatements.push({ statement, module: statement.moduleSpecifier.text, specifier: statement.moduleSpecifier });
    if (api.isExpressionStatement(statement)) {
      const required = requireOf(api, statement.expression);
      if (required) moduleStatements.push({ statement, module: required.specifier.text, specifier: required.specifier });
    }
    if (api.isVariableStatement(statement) && statement.declarationList.declarations.length === 1) {
      const declaration = statement.declarationList.declarations[0]!;
      const required = requireOf(api, declaration.initializer);
      if (required) {
        moduleStatements.push({ statement, module: required.specifier.text, specifier: required.specifier });
        // `const GitHub = require('…').default`, `const { SqliteAdapter } = require('…')`: bindings as an import's.
        if (api.isIdentifier(declaration.name)) imports.set(declaration.name.text, required.specifier.text);
        else if (api.isObjectBindingPattern(declaration.name)) {
          for (const element of declaration.name.elements) if (api.isIdentifier(element.name)) imports.set(element.name.text, required.specifier.text);
        }
      }
    }
    if (api.isImportDeclaration(statement) && api.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      if (!clause) continue;
      const from = statement.moduleSpecifier.text;
      if (clause.name) {
        topLevelNames.add(clause.name.text);
        if (!clause.isTypeOnly) imports.set(clause.name.text, from);
      }
      const bindings = clause.namedBindings;
      if (bindings && api.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          topLevelNames.add(element.name.text);
          if (!clause.isTypeOnly && !element.isTypeOnly) imports.set(element.name.text, from);
        }
      } else if (bindings) {
        topLevelNames.add(bindings.name.text);
      }
    } else if (api.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (api.isObjectBindingPattern(declaration.name)) {
          for (const element of declaration.name.elements) if (api.isIdentifier(element.name)) topLevelNames.add(element.name.text);
        }
        if (!api.isIdentifier(declaration.name)) continue;
        topLevelNames.add(declaration.name.text);
        if (declaration.initializer) topLevelConstants.set(declaration.name.text, declaration.initializer);
        if (declaration.name.text === 'authConfig' && declaration.initializer) {
          const value = unwrap(api, declaration.initializer);
          if (api.isObjectLiteralExpression(value)) configObject = value;
        }
      }
    } else if ((api.isFunctionDeclaration(statement) || api.isClassDeclaration(statement)) && statement.name) {
      topLevelNames.add(statement.name.text);
    }
  }
  if (!configObject) throw unsupported(path, 'no `export const authConfig = { ... }` object literal found');
  let providers: ts.ArrayLiteralExpression | undefined;
  let adapter: ts.ObjectLiteralElementLike | undefined;
  let features: ParsedConfig['features'];
  for (const property of configObject.properties) {
    if (api.isPropertyAssignment(property) && propertyName(api, property.name) === 'features') {
      const value = unwrap(api, property.initializer);
      if (api.isArrayLiteralExpression(value)) features = { property, array: value };
    }
    if ((api.isPropertyAssignment(property) || api.isShorthandPropertyAssignment(property)) && propertyName(api, property.name) === 'adapter') {
      adapter = property;
    }
    if (api.isShorthandPropertyAssignment(property) && property.name.text === 'providers') {
      throw unsupported(path, '`providers` is a variable, not an array literal');
    }
    if (!api.isPropertyAssignment(property) || propertyName(api, property.name) !== 'providers') continue;
    const value = unwrap(api, property.initializer);
    if (!api.isArrayLiteralExpression(value)) throw unsupported(path, '`providers` is not an array literal');
    providers = value;
  }
  const style = moduleStatements.some(({ statement }) => api.isImportDeclaration(statement)) || moduleStatements.length === 0 ? 'import' : 'require';
  return { path, sourceFile, configObject, providers, imports, topLevelNames, topLevelConstants, adapter, features, moduleStatements, style };
}

function providerModulesOf(api: TypeScriptApi, parsed: ParsedConfig): string[] {
  return callModulesOf(api, parsed, parsed.providers);
}

/** The normalised module of each element of an array literal that is an imported function or a call of one. */
function callModulesOf(api: TypeScriptApi, parsed: ParsedConfig, array: ts.ArrayLiteralExpression | undefined): string[] {
  return (array?.elements ?? []).flatMap((element) => importedModuleOf(api, parsed, element) ?? []);
}

/** The name a list element calls (`GitHub` in `GitHub({ … })`) or is (`GitHub`). */
function calleeName(api: TypeScriptApi, element: ts.Expression): string | undefined {
  const callee = api.isCallExpression(element) ? element.expression : element;
  return api.isIdentifier(callee) ? callee.text : undefined;
}

/** The normalised module a list element's callee is imported from, when it is imported. */
function importedModuleOf(api: TypeScriptApi, parsed: ParsedConfig, element: ts.Expression): string | undefined {
  const name = calleeName(api, element);
  const from = name === undefined ? undefined : parsed.imports.get(name);
  return from === undefined ? undefined : normaliseModule(from);
}

function adapterModuleOf(api: TypeScriptApi, parsed: ParsedConfig): string | undefined {
  const property = parsed.adapter;
  if (!property) return undefined;
  let value: ts.Expression = api.isShorthandPropertyAssignment(property) ? property.name : unwrap(api, (property as ts.PropertyAssignment).initializer);
  // `const adapter = SqliteAdapter({ ... })` above the config, then `adapter` or `adapter: adapter`.
  for (let depth = 0; depth < 2 && api.isIdentifier(value) && !parsed.imports.has(value.text); depth += 1) {
    const initializer = parsed.topLevelConstants.get(value.text);
    if (!initializer) break;
    value = unwrap(api, initializer);
  }
  if (api.isCallExpression(value)) value = value.expression;
  if (!api.isIdentifier(value)) return undefined;
  const from = parsed.imports.get(value.text);
  return from === undefined ? undefined : normaliseModule(from);
}

/**
 * The outcome of a config edit the caller can live without: the value, or the refusal it met (a config this editor
 * cannot read or change), returned rather than thrown so that a planner keeps the user's file as a conflict.
 */
export type EditOutcome<T> = T | Refusal;

function outcome<T>(edit: () => T): EditOutcome<T> {
  try {
    return edit();
  } catch (error) {
    if (error instanceof Refusal && error.type === 'unsupported-edit') return error;
    throw error;
  }
}

/** {@link readAuthConfig}, with a config it cannot read returned as its refusal. */
export function inspectAuthConfig(api: TypeScriptApi, source: string, path: string = defaultConfigPath): EditOutcome<AuthConfigInfo> {
  return outcome(() => readAuthConfig(api, source, path));
}

/** Adds each provider (as {@link addProviderToConfig}); a list it cannot edit is returned as its refusal. */
export function addProvidersToConfig(api: TypeScriptApi, source: string, providers: readonly (ProviderInsertion & { id: string })[], path: string = defaultConfigPath): EditOutcome<{ content: string; added: string[] }> {
  return outcome(() => {
    let content = source;
    const added: string[] = [];
    for (const provider of providers) {
      const edit = addProviderToConfig(api, content, provider, path);
      if (edit.changed) added.push(provider.id);
      content = edit.content;
    }
    return { content, added };
  });
}

/** Reads `basePath`, the providers and the adapter from the text of `src/auth/config.ts`. */
export function readAuthConfig(api: TypeScriptApi, source: string, path: string = defaultConfigPath): AuthConfigInfo {
  const parsed = parseConfig(api, source, path);
  let basePath: string | undefined;
  for (const property of parsed.configObject.properties) {
    if (!api.isPropertyAssignment(property)) continue;
    if (propertyName(api, property.name) === 'basePath') {
      const value = unwrap(api, property.initializer);
      if (api.isStringLiteral(value) || api.isNoSubstitutionTemplateLiteral(value)) basePath = value.text;
    }
  }
  return {
    basePath,
    providerModules: providerModulesOf(api, parsed),
    hasAdapter: parsed.adapter !== undefined,
    adapterModule: adapterModuleOf(api, parsed),
    featureModules: callModulesOf(api, parsed, parsed.features?.array),
  };
}

/**
 * The option names a feature's call in `features: [...]` is given (`admins` of `Admin({ admins: [...] })`): the
 * properties of its object-literal argument; none when it has no such argument, undefined when the list has no call
 * of the feature (its module's import path, `./core/features/admin/index.js`).
 */
export function featureOptionNames(api: TypeScriptApi, source: string, importPath: string, path: string = defaultConfigPath): string[] | undefined {
  const parsed = parseConfig(api, source, path);
  const element = parsed.features?.array.elements.find((candidate) => importedModuleOf(api, parsed, candidate) === normaliseModule(importPath));
  if (element === undefined) return undefined;
  const argument = api.isCallExpression(element) && element.arguments[0] ? unwrap(api, element.arguments[0]) : undefined;
  if (argument === undefined || !api.isObjectLiteralExpression(argument)) return [];
  return argument.properties.flatMap((property) => (property.name ? (propertyName(api, property.name) ?? []) : []));
}

function lineStart(text: string, position: number): number {
  return text.lastIndexOf('\n', position - 1) + 1;
}

function indentationAt(text: string, position: number): string {
  const start = lineStart(text, position);
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

function indentSnippet(snippet: string, indent: string): string {
  return snippet
    .split('\n')
    .map((line, index) => (index === 0 || line === '' ? line : indent + line))
    .join('\n');
}

function freeName(wanted: string, taken: Set<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let counter = 0; ; counter += 1) {
    const candidate = counter === 0 ? `${wanted}Provider` : `${wanted}Provider${counter + 1}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function applyTextEdits(text: string, edits: TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.position - a.position)) {
    result = result.slice(0, edit.position) + edit.text + result.slice(edit.position + edit.deleteCount);
  }
  return result;
}

/**
 * `import Name from '...'` (a provider's default export), or `import { Name } from '...'` when `exportName` is given
 * (`const Name = require('...').default;` and `const { Name } = require('...');` in a CommonJS config): after the last
 * import for which `anchor` holds (else after the last import), in the quotes and semicolons of the file.
 */
function importEdit(
  api: TypeScriptApi,
  parsed: ParsedConfig,
  localName: string,
  importPath: string,
  exportName?: string,
  anchor: (module: string) => boolean = () => true,
): TextEdit {
  const { sourceFile } = parsed;
  const text = sourceFile.text;
  const line = (path: string, quote: string, semicolon: string): string => {
    if (parsed.style === 'require') {
      const binding = exportName === undefined ? localName : `{ ${exportName === localName ? localName : `${exportName}: ${localName}`} }`;
      return `const ${binding} = require(${quote}${path}${quote})${exportName === undefined ? '.default' : ''}${semicolon}`;
    }
    const bindings = exportName === undefined ? localName : `{ ${exportName === localName ? localName : `${exportName} as ${localName}`} }`;
    return `import ${bindings} from ${quote}${path}${quote}${semicolon}`;
  };
  const imports = [...parsed.moduleStatements].reverse();
  const lastImport = imports.find(({ module }) => anchor(module)) ?? imports[0];
  if (!lastImport) {
    const first = sourceFile.statements[0];
    const position = first ? first.getStart(sourceFile) : text.length;
    return { position, deleteCount: 0, text: `${line(`./${importPath.replace(/^\.\//, '')}`, "'", ';')}\n` };
  }
  const quote = lastImport.specifier.getText(sourceFile).startsWith('"') ? '"' : "'";
  const semicolon = lastImport.statement.getText(sourceFile).trimEnd().endsWith(';') ? ';' : '';
  return { position: lastImport.statement.end, deleteCount: 0, text: `\n${line(importPath, quote, semicolon)}` };
}

function listEdits(api: TypeScriptApi, parsed: ParsedConfig, element: string): TextEdit[] {
  const { sourceFile, providers } = parsed;
  const text = sourceFile.text;
  if (!providers) throw unsupported(parsed.path, '`authConfig` has no `providers: [...]` list');
  const open = providers.getStart(sourceFile);
  const close = providers.end - 1;
  const elements = providers.elements;
  const last = elements[elements.length - 1];
  if (!last) {
    const outer = indentationAt(text, open);
    const inner = `${outer}  `;
    return [{ position: open + 1, deleteCount: close - open - 1, text: `\n${inner}${indentSnippet(element, inner)},\n${outer}` }];
  }
  const lastStart = last.getStart(sourceFile);
  const sameLine = lineStart(text, lastStart) === lineStart(text, open);
  if (sameLine) {
    const indent = indentationAt(text, open);
    return [{ position: last.end, deleteCount: 0, text: `, ${indentSnippet(element, indent)}` }];
  }
  const indent = indentationAt(text, lastStart);
  const afterLast = elements.hasTrailingComma ? text.indexOf(',', last.end) + 1 : last.end;
  const lineEnd = text.indexOf('\n', afterLast);
  // Insert at the end of the last element's line so that a trailing comment stays with its element.
  const position = lineEnd === -1 || lineEnd > close ? close : lineEnd;
  const newElement = `\n${indent}${indentSnippet(element, indent)}${elements.hasTrailingComma ? ',' : ''}`;
  const edits: TextEdit[] = [{ position, deleteCount: 0, text: newElement }];
  if (!elements.hasTrailingComma) edits.push({ position: last.end, deleteCount: 0, text: ',' });
  return edits;
}

function syntaxErrors(api: TypeScriptApi, source: string): string[] {
  const output = api.transpileModule(source, {
    reportDiagnostics: true,
    compilerOptions: { module: api.ModuleKind.ESNext, target: api.ScriptTarget.ES2022 },
  });
  return (output.diagnostics ?? []).map((diagnostic) => api.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

/**
 * Adds a provider to the `providers` array of `authConfig` and its factory import, editing the syntax tree's
 * positions so that everything else (comments, formatting, other providers) stays byte-for-byte. A provider whose
 * factory module is already in the list is left alone (adding it again, or through an alias, is a no-op).
 */
export function addProviderToConfig(api: TypeScriptApi, source: string, provider: ProviderInsertion, path: string = defaultConfigPath): ProviderListEdit {
  const parsed = parseConfig(api, source, path);
  const wantedModule = normaliseModule(provider.importPath);
  if (providerModulesOf(api, parsed).includes(wantedModule)) return { content: source, changed: false };

  const existingLocal = [...parsed.imports].find(([, from]) => normaliseModule(from) === wantedModule)?.[0];
  const localName = existingLocal ?? freeName(provider.importName, parsed.topLevelNames);
  const element = provider.snippet.startsWith(provider.importName)
    ? localName + provider.snippet.slice(provider.importName.length)
    : provider.snippet;
  const edits = listEdits(api, parsed, element);
  // Beside the other providers' imports, before an adapter's, where create-framework-auth writes it: "create with X"
  // and "create, then add-provider X" give the same file.
  const providerModules = new Set(providerModulesOf(api, parsed));
  const isProviderImport = (module: string): boolean => providerModules.has(normaliseModule(module));
  if (existingLocal === undefined) edits.push(importEdit(api, parsed, localName, provider.importPath, undefined, isProviderImport));
  const content = applyTextEdits(source, edits);

  const errors = syntaxErrors(api, content);
  if (errors.length > 0 || !readAuthConfig(api, content).providerModules.includes(wantedModule)) {
    throw unsupported(parsed.path, `adding ${provider.importName} would not produce valid code (${errors.join('; ') || 'provider not found after the edit'})`);
  }
  return { content, changed: true };
}

// The run that asks for an adapter adds its files and dependencies: a config it cannot set the adapter in refuses
// the run (kept as a conflict, the config would miss the adapter the rest of the project now expects).
function adapterUnsupported(path: string, message: string): Refusal {
  return new Refusal('usage', `${path}: ${message}`, {
    hint: 'Set `adapter:` in the config by hand, or pass --force to regenerate the file.',
  });
}

/**
 * Sets `adapter:` in `authConfig` (a new property after the last one) and imports its factory, editing the syntax
 * tree's positions so that everything else stays byte-for-byte. A config whose adapter already comes from the same
 * module is left alone; one with another adapter is refused (replacing where users and sessions live is the
 * user's decision, never a side effect of a re-run).
 */
export function setAdapterInConfig(api: TypeScriptApi, source: string, adapter: AdapterInsertion, path: string = defaultConfigPath): ProviderListEdit {
  const parsed = parseConfig(api, source, path);
  const wantedModule = normaliseModule(adapter.importPath);
  if (parsed.adapter) {
    if (adapterModuleOf(api, parsed) === wantedModule) return { content: source, changed: false };
    throw adapterUnsupported(parsed.path, `it already sets \`${parsed.adapter.getText(parsed.sourceFile)}\``);
  }
  const { sourceFile, configObject } = parsed;
  const text = sourceFile.text;
  const properties = configObject.properties;
  const last = properties[properties.length - 1];
  const open = configObject.getStart(sourceFile);
  const close = configObject.end - 1;
  if (!last || lineStart(text, last.getStart(sourceFile)) === lineStart(text, open)) {
    throw adapterUnsupported(parsed.path, '`authConfig` is not an object literal with one property per line');
  }

  const existingLocal = [...parsed.imports].find(([, from]) => normaliseModule(from) === wantedModule)?.[0];
  let localName = existingLocal ?? adapter.importName;
  for (let counter = 2; existingLocal === undefined && parsed.topLevelNames.has(localName); counter += 1) localName = `${adapter.importName}${counter}`;
  const value = adapter.snippet.startsWith(adapter.importName) ? localName + adapter.snippet.slice(adapter.importName.length) : adapter.snippet;

  const indent = indentationAt(text, last.getStart(sourceFile));
  const afterLast = properties.hasTrailingComma ? text.indexOf(',', last.end) + 1 : last.end;
  const lineEnd = text.indexOf('\n', afterLast);
  // After the last property's line, so that a trailing comment stays with its property.
  const position = lineEnd === -1 || lineEnd > close ? close : lineEnd;
  const edits: TextEdit[] = [{ position, deleteCount: 0, text: `\n${indent}adapter: ${value}${properties.hasTrailingComma ? ',' : ''}` }];
  if (!properties.hasTrailingComma) edits.push({ position: last.end, deleteCount: 0, text: ',' });
  if (existingLocal === undefined) edits.push(importEdit(api, parsed, localName, adapter.importPath, adapter.importName));
  const content = applyTextEdits(source, edits);

  const errors = syntaxErrors(api, content);
  if (errors.length > 0 || readAuthConfig(api, content).adapterModule !== wantedModule) {
    throw adapterUnsupported(parsed.path, `setting the adapter would not produce valid code (${errors.join('; ') || 'adapter not found after the edit'})`);
  }
  return { content, changed: true };
}

function lineEndAt(text: string, position: number): number {
  const end = text.indexOf('\n', position);
  return end === -1 ? text.length : end;
}

/**
 * Removes the provider whose factory comes from `importPath` from the `providers` array of `authConfig`, and its
 * import when nothing else uses it: the inverse of {@link addProviderToConfig}, byte for byte, so that adding then
 * removing a provider gives the file back as it was. A provider that is not in the list is a no-op. Throws when
 * it is the only provider (a config without providers cannot sign anyone in).
 */
export function removeProviderFromConfig(api: TypeScriptApi, source: string, importPath: string, path: string = defaultConfigPath): ProviderListEdit {
  const parsed = parseConfig(api, source, path);
  const { sourceFile, providers } = parsed;
  const text = sourceFile.text;
  const wantedModule = normaliseModule(importPath);
  const elements = providers ? [...providers.elements] : [];
  const index = elements.findIndex((element) => importedModuleOf(api, parsed, element) === wantedModule);
  if (!providers || index === -1) return { content: source, changed: false };
  if (elements.length === 1) {
    throw new Refusal('usage', `${path}: it is the only provider; a config without providers cannot sign anyone in.`, {
      hint: 'Add another provider first (npx framework-auth add-provider <id>), then remove this one.',
    });
  }
  const element = elements[index]!;
  const edits: TextEdit[] = [];
  const start = element.getStart(sourceFile);
  const previous = elements[index - 1];
  const next = elements[index + 1];
  const isLast = next === undefined;
  const ownLine = lineStart(text, start) !== lineStart(text, previous ? previous.end : providers.getStart(sourceFile))
    && (next === undefined || lineStart(text, next.getStart(sourceFile)) !== lineStart(text, element.end));
  if (ownLine) {
    // The element's own lines go, with a comment after it on its last line; a list without a trailing comma loses
    // the comma after the element before it, as add-provider had added it.
    const afterComma = /^[ \t]*,/.exec(text.slice(element.end));
    const end = afterComma ? element.end + afterComma[0].length : element.end;
    let to = lineEndAt(text, end);
    const close = providers.end - 1;
    if (to > close) to = end;
    edits.push({ position: lineStart(text, start) - 1, deleteCount: to - (lineStart(text, start) - 1), text: '' });
    if (isLast && !afterComma && previous) {
      const comma = text.indexOf(',', previous.end);
      if (comma !== -1 && comma < start) edits.push({ position: comma, deleteCount: 1, text: '' });
    }
  } else if (previous) {
    // `[A(), B()]` → `[A()]`: from the end of the element before.
    edits.push({ position: previous.end, deleteCount: element.end - previous.end, text: '' });
  } else {
    edits.push({ position: start, deleteCount: next!.getStart(sourceFile) - start, text: '' });
  }

  return finishRemoval(api, parsed, source, edits, element, wantedModule, 'provider');
}

/**
 * Ends removing `element` (a provider or a feature imported from `module`): its import goes too unless something else
 * uses it (another element, a helper), and the result must parse and no longer list the module, or nothing is written.
 */
function finishRemoval(api: TypeScriptApi, parsed: ParsedConfig, source: string, edits: TextEdit[], element: ts.Expression, module: string, kind: 'provider' | 'feature'): ProviderListEdit {
  const localName = calleeName(api, element) ?? '';
  const content = applyTextEdits(source, [...edits, ...unusedImportEdits(api, parsed, module, localName, element)]);
  const errors = syntaxErrors(api, content);
  const listed = readAuthConfig(api, content)[kind === 'provider' ? 'providerModules' : 'featureModules'];
  if (errors.length > 0 || listed.includes(module)) {
    throw unsupported(parsed.path, `removing ${localName} would not produce valid code (${errors.join('; ') || `${kind} still found after the edit`})`);
  }
  return { content, changed: true };
}

/**
 * Deletes the import line of `module` when it binds only `localName` (a default or one named binding) and nothing but
 * `element` (the removed list element) uses it.
 */
function unusedImportEdits(api: TypeScriptApi, parsed: ParsedConfig, module: string, localName: string, element: ts.Node): TextEdit[] {
  const { sourceFile } = parsed;
  const text = sourceFile.text;
  const statement = parsed.moduleStatements.find((candidate) => normaliseModule(candidate.module) === module)?.statement;
  if (!statement || !bindsOnly(api, statement, localName) || usedElsewhere(api, sourceFile, localName, [element, statement])) return [];
  const lineBegin = lineStart(text, statement.getStart(sourceFile));
  const end = lineEndAt(text, statement.end);
  return [lineBegin === 0 ? { position: 0, deleteCount: Math.min(end + 1, text.length), text: '' } : { position: lineBegin - 1, deleteCount: end - lineBegin + 1, text: '' }];
}

/** Whether an import (or `const … = require(…)`) binds `localName` alone: a default, or one named binding. */
function bindsOnly(api: TypeScriptApi, statement: ts.Statement, localName: string): boolean {
  if (api.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    const bindings = clause?.namedBindings;
    const onlyDefault = clause?.name?.text === localName && bindings === undefined;
    const onlyNamed = clause?.name === undefined && bindings !== undefined && api.isNamedImports(bindings) && bindings.elements.length === 1 && bindings.elements[0]!.name.text === localName;
    return onlyDefault || onlyNamed;
  }
  if (!api.isVariableStatement(statement)) return false;
  const name = statement.declarationList.declarations[0]?.name;
  if (name && api.isIdentifier(name)) return name.text === localName;
  return name !== undefined && api.isObjectBindingPattern(name) && name.elements.length === 1 && api.isIdentifier(name.elements[0]!.name) && name.elements[0]!.name.text === localName;
}

/** Whether `name` appears in the file outside the given nodes. */
function usedElsewhere(api: TypeScriptApi, sourceFile: ts.SourceFile, name: string, except: readonly ts.Node[]): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || except.includes(node)) return;
    if (api.isIdentifier(node) && node.text === name) {
      found = true;
      return;
    }
    api.forEachChild(node, visit);
  };
  api.forEachChild(sourceFile, visit);
  return found;
}

/** A feature to add to `features: [...]`: the factory (a named export of its module) and the element. */
export interface FeatureInsertion {
  importName: string;
  importPath: string;
  snippet: string;
}

/**
 * Adds a feature to the `features` array of `authConfig` (creating the property after the last one when there is
 * none) and imports its factory, editing the syntax tree's positions so that everything else stays byte-for-byte.
 * A feature whose module is already in the list is left alone. `followers` are the modules of the features that come
 * after it (in the catalog's order, as create writes them): its element and its import go before theirs, so that
 * adding features one by one writes what create writes with all of them; otherwise both go last.
 */
export function addFeatureToConfig(api: TypeScriptApi, source: string, feature: FeatureInsertion, path: string = defaultConfigPath, followers: readonly string[] = []): ProviderListEdit {
  const parsed = parseConfig(api, source, path);
  const wantedModule = normaliseModule(feature.importPath);
  if (callModulesOf(api, parsed, parsed.features?.array).includes(wantedModule)) return { content: source, changed: false };
  const { sourceFile, configObject } = parsed;
  const text = sourceFile.text;
  const existingLocal = [...parsed.imports].find(([, from]) => normaliseModule(from) === wantedModule)?.[0];
  let localName = existingLocal ?? feature.importName;
  for (let counter = 2; existingLocal === undefined && parsed.topLevelNames.has(localName); counter += 1) localName = `${feature.importName}${counter}`;
  const element = feature.snippet.startsWith(feature.importName) ? localName + feature.snippet.slice(feature.importName.length) : feature.snippet;
  const followerModules = followers.map(normaliseModule);
  const isFollower = (module: string | undefined): boolean => module !== undefined && followerModules.includes(normaliseModule(module));
  const edits: TextEdit[] = [];
  const follower = parsed.features?.array.elements.find((candidate) => isFollower(importedModuleOf(api, parsed, candidate)));
  if (parsed.features && follower) {
    // Before the first feature that comes after it: on the same line, or on a line of its own at that one's indent.
    const start = follower.getStart(sourceFile);
    const sameLine = lineStart(text, start) === lineStart(text, parsed.features.array.getStart(sourceFile));
    edits.push({ position: start, deleteCount: 0, text: sameLine ? `${element}, ` : `${indentSnippet(element, indentationAt(text, start))},\n${indentationAt(text, start)}` });
  } else if (parsed.features) {
    edits.push(...arrayAppendEdits(api, parsed, parsed.features.array, element));
  } else {
    const properties = configObject.properties;
    const last = properties[properties.length - 1];
    const open = configObject.getStart(sourceFile);
    const close = configObject.end - 1;
    if (!last || lineStart(text, last.getStart(sourceFile)) === lineStart(text, open)) {
      throw unsupported(parsed.path, '`authConfig` is not an object literal with one property per line');
    }
    const indent = indentationAt(text, last.getStart(sourceFile));
    const afterLast = properties.hasTrailingComma ? text.indexOf(',', last.end) + 1 : last.end;
    const lineEnd = text.indexOf('\n', afterLast);
    const position = lineEnd === -1 || lineEnd > close ? close : lineEnd;
    edits.push({ position, deleteCount: 0, text: `\n${indent}features: [${element}]${properties.hasTrailingComma ? ',' : ''}` });
    if (!properties.hasTrailingComma) edits.push({ position: last.end, deleteCount: 0, text: ',' });
  }
  if (existingLocal === undefined) edits.push(importEdit(api, parsed, localName, feature.importPath, feature.importName, (module) => !isFollower(module)));
  const content = applyTextEdits(source, edits);
  const errors = syntaxErrors(api, content);
  if (errors.length > 0 || !readAuthConfig(api, content).featureModules.includes(wantedModule)) {
    throw unsupported(parsed.path, `adding ${feature.importName} would not produce valid code (${errors.join('; ') || 'feature not found after the edit'})`);
  }
  return { content, changed: true };
}

/** Appends an element to an array literal, as `listEdits` does for the providers. */
function arrayAppendEdits(api: TypeScriptApi, parsed: ParsedConfig, array: ts.ArrayLiteralExpression, element: string): TextEdit[] {
  const { sourceFile } = parsed;
  const text = sourceFile.text;
  const last = array.elements[array.elements.length - 1];
  if (!last) return [{ position: array.getStart(sourceFile) + 1, deleteCount: array.end - 1 - (array.getStart(sourceFile) + 1), text: element }];
  if (lineStart(text, last.getStart(sourceFile)) === lineStart(text, array.getStart(sourceFile))) return [{ position: last.end, deleteCount: 0, text: `, ${element}` }];
  return listEdits(api, { ...parsed, providers: array }, element);
}

/**
 * Removes the feature whose factory comes from `importPath` from `features: [...]` (the whole property when it was
 * the only one) and its import when nothing else uses it: the inverse of {@link addFeatureToConfig}. A feature that
 * is not there is a no-op.
 */
export function removeFeatureFromConfig(api: TypeScriptApi, source: string, importPath: string, path: string = defaultConfigPath): ProviderListEdit {
  const parsed = parseConfig(api, source, path);
  const { sourceFile } = parsed;
  const text = sourceFile.text;
  const wantedModule = normaliseModule(importPath);
  const features = parsed.features;
  const elements = features ? [...features.array.elements] : [];
  const index = elements.findIndex((element) => importedModuleOf(api, parsed, element) === wantedModule);
  if (!features || index === -1) return { content: source, changed: false };
  const element = elements[index]!;
  const edits: TextEdit[] = [];
  if (elements.length === 1) {
    // The property's own line goes (with its comma); a config without a trailing comma loses the one before it.
    const { property } = features;
    const start = lineStart(text, property.getStart(sourceFile));
    const afterComma = /^[ \t]*,/.exec(text.slice(property.end));
    const end = lineEndAt(text, afterComma ? property.end + afterComma[0].length : property.end);
    edits.push({ position: start - 1, deleteCount: end - start + 1, text: '' });
    if (!afterComma) {
      const properties = [...parsed.configObject.properties];
      const previous = properties[properties.indexOf(property) - 1];
      const comma = previous ? text.indexOf(',', previous.end) : -1;
      if (previous && comma !== -1 && comma < property.getStart(sourceFile)) edits.push({ position: comma, deleteCount: 1, text: '' });
    }
  } else {
    const previous = elements[index - 1];
    const next = elements[index + 1];
    if (previous) edits.push({ position: previous.end, deleteCount: element.end - previous.end, text: '' });
    else edits.push({ position: element.getStart(sourceFile), deleteCount: next!.getStart(sourceFile) - element.getStart(sourceFile), text: '' });
  }
  return finishRemoval(api, parsed, source, edits, element, wantedModule, 'feature');
}

/**
 * An option a feature sets in a provider's options object: `twoFactor: true` in `Credentials({ … })`, the opt-in of
 * a provider that a feature leaves alone until told.
 */
export interface ProviderOption {
  /** The provider factory's module (`./core/providers/credentials.js`). */
  importPath: string;
  /** The property's name (`twoFactor`). */
  name: string;
  /** Its value, as code (`true`). */
  value: string;
  /** Written after the property when it gets a line of its own. */
  comment?: string;
}

// A provider call the editor cannot set an option in: the caller keeps the config as it is and tells the user what
// to write by hand.
function optionUnsupported(message: string): Refusal {
  return new Refusal('unsupported-edit', message);
}

/**
 * The options objects of each element of the providers list whose factory comes from the option's module:
 * `{ … }` of `Credentials({ … })`. An element whose options are not one object literal with only named properties
 * (no argument, a variable, a spread that may hold the option) is refused.
 */
function providerOptionObjects(api: TypeScriptApi, parsed: ParsedConfig, option: ProviderOption): ts.ObjectLiteralExpression[] {
  const wantedModule = normaliseModule(option.importPath);
  const elements = (parsed.providers?.elements ?? []).filter((element) => importedModuleOf(api, parsed, element) === wantedModule);
  return elements.map((element) => {
    const call = `${calleeName(api, element) ?? 'the provider'}(…)`;
    const argument = api.isCallExpression(element) && element.arguments.length === 1 ? element.arguments[0]! : undefined;
    if (!argument || !api.isObjectLiteralExpression(argument)) throw optionUnsupported(`${call} does not take one object literal`);
    const opaque = argument.properties.find((property) => api.isSpreadAssignment(property) || property.name === undefined || propertyName(api, property.name) === undefined);
    if (opaque) throw optionUnsupported(`${call} has \`${opaque.getText(parsed.sourceFile)}\`, which may set ${option.name}`);
    return argument;
  });
}

/** The property of an options object named `name`, when it has one. */
function optionProperty(api: TypeScriptApi, object: ts.ObjectLiteralExpression, name: string): ts.ObjectLiteralElementLike | undefined {
  return object.properties.find((property) => property.name !== undefined && propertyName(api, property.name) === name);
}

/** Whether a property is `name: value` as the option writes it (`twoFactor: true`). */
function holdsValue(api: TypeScriptApi, parsed: ParsedConfig, property: ts.ObjectLiteralElementLike, value: string): boolean {
  return api.isPropertyAssignment(property) && unwrap(api, property.initializer).getText(parsed.sourceFile) === value;
}

/**
 * Sets an option in the options object of the provider from the option's module (every such element of the
 * providers list): a line of its own first in a multi-line object, as the catalog's snippet writes it, else first
 * on the line. A provider that already holds the option as given, or that is not in the list, is left alone. An
 * element it cannot edit safely (see {@link providerOptionObjects}), or one that sets the option to another value
 * (the user's decision), is returned as a refusal, so that the caller keeps the file and says what to write.
 */
export function setProviderOption(api: TypeScriptApi, source: string, option: ProviderOption, path: string = defaultConfigPath): EditOutcome<ProviderListEdit> {
  return outcome(() => {
    const parsed = parseConfig(api, source, path);
    const { sourceFile } = parsed;
    const text = sourceFile.text;
    const edits: TextEdit[] = [];
    for (const object of providerOptionObjects(api, parsed, option)) {
      const existing = optionProperty(api, object, option.name);
      if (existing && holdsValue(api, parsed, existing, option.value)) continue;
      if (existing) throw optionUnsupported(`it sets \`${existing.getText(sourceFile)}\` already`);
      const open = object.getStart(sourceFile);
      const first = object.properties[0];
      const property = `${option.name}: ${option.value}`;
      if (!first) edits.push({ position: open + 1, deleteCount: object.end - 1 - (open + 1), text: ` ${property} ` });
      else if (lineStart(text, first.getStart(sourceFile)) === lineStart(text, open)) edits.push({ position: first.getStart(sourceFile), deleteCount: 0, text: `${property}, ` });
      else edits.push({ position: open + 1, deleteCount: 0, text: `\n${indentationAt(text, first.getStart(sourceFile))}${property},${option.comment === undefined ? '' : ` // ${option.comment}`}` });
    }
    if (edits.length === 0) return { content: source, changed: false };
    const content = applyTextEdits(source, edits);
    const errors = syntaxErrors(api, content);
    if (errors.length > 0) throw optionUnsupported(`setting ${option.name} would not produce valid code (${errors.join('; ')})`);
    return { content, changed: true };
  });
}

/**
 * Takes the option out of the options object of the provider from the option's module where it holds the option's
 * value (its own line, with its comment, or its place on a shared line): the inverse of {@link setProviderOption},
 * byte for byte. The option set to another value is the user's and stays; a provider not in the list, or without
 * the option, is left alone. An element it cannot read safely is returned as a refusal.
 */
export function removeProviderOption(api: TypeScriptApi, source: string, option: ProviderOption, path: string = defaultConfigPath): EditOutcome<ProviderListEdit> {
  return outcome(() => {
    const parsed = parseConfig(api, source, path);
    const { sourceFile } = parsed;
    const text = sourceFile.text;
    const edits: TextEdit[] = [];
    for (const object of providerOptionObjects(api, parsed, option)) {
      const property = optionProperty(api, object, option.name);
      if (!property) continue;
      if (!holdsValue(api, parsed, property, option.value)) {
        if (api.isPropertyAssignment(property) && unwrap(api, property.initializer).kind === api.SyntaxKind.FalseKeyword) continue;
        throw optionUnsupported(`it sets \`${property.getText(sourceFile)}\`, which may be ${option.value}`);
      }
      const properties = [...object.properties];
      const index = properties.indexOf(property);
      const previous = properties[index - 1];
      const next = properties[index + 1];
      const start = property.getStart(sourceFile);
      const open = object.getStart(sourceFile);
      const ownLine = lineStart(text, start) !== lineStart(text, previous ? previous.end : open) && (next === undefined || lineStart(text, next.getStart(sourceFile)) !== lineStart(text, property.end));
      if (ownLine) {
        // Its line goes, with the comment after it; an object without a trailing comma loses the comma before it.
        const afterComma = /^[ \t]*,/.exec(text.slice(property.end));
        const end = lineEndAt(text, afterComma ? property.end + afterComma[0].length : property.end);
        edits.push({ position: lineStart(text, start) - 1, deleteCount: end - lineStart(text, start) + 1, text: '' });
        if (!afterComma && next === undefined && previous) {
          const comma = text.indexOf(',', previous.end);
          if (comma !== -1 && comma < start) edits.push({ position: comma, deleteCount: 1, text: '' });
        }
      } else if (next) {
        edits.push({ position: start, deleteCount: next.getStart(sourceFile) - start, text: '' });
      } else if (previous) {
        edits.push({ position: previous.end, deleteCount: property.end - previous.end, text: '' });
      } else {
        // `{ twoFactor: true }` → `{}`, as setting it on `{}` wrote it.
        edits.push({ position: open + 1, deleteCount: object.end - 1 - (open + 1), text: '' });
      }
    }
    if (edits.length === 0) return { content: source, changed: false };
    const content = applyTextEdits(source, edits);
    const errors = syntaxErrors(api, content);
    if (errors.length > 0) throw optionUnsupported(`removing ${option.name} would not produce valid code (${errors.join('; ')})`);
    return { content, changed: true };
  });
}
