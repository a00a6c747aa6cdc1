/**
 * Which names a parameter may have (SPEC 2.2 params; docs/semantics.md "Parameter names"). A param becomes
 * a variable of every step process, above the DAG's own `env`, and the values of a start come from
 * whoever may start the DAG: so a name is an identifier (or a positional index), and never one of the
 * variables a shell, the dynamic loader or an interpreter reads as code or as a place to load code from.
 * Values stay data, whatever they hold.
 */

/** An identifier, or a positional index (`1`, `2`, ... as a JSON object's keys name them). */
const PARAM_NAME = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)$/;

/**
 * Variables that make a program run other code or load it from elsewhere. `ENV` is not here: only an
 * interactive shell reads it, steps run non-interactive shells, and `ENV=prod` is a common param.
 */
export const DENIED_PARAM_NAMES: readonly string[] = [
  // shells
  'BASH_ENV', 'PATH', 'IFS', 'PS4', 'SHELLOPTS', 'BASHOPTS', 'CDPATH', 'GLOBIGNORE', 'PROMPT_COMMAND', 'HOME', 'SHELL',
  'EDITOR', 'VISUAL', 'PAGER', 'LESSOPEN', 'LESSCLOSE', 'MANPAGER', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SSH', 'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH', 'GIT_ASKPASS', 'SSH_ASKPASS',
  // the C library's loader and iconv
  'GCONV_PATH', 'LOCPATH', 'HOSTALIASES', 'RESOLV_HOST_CONF', 'MALLOC_CHECK_',
  // interpreters and runtimes
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH',
  'PERLLIB', 'LUA_PATH', 'LUA_CPATH', 'LUA_INIT', 'TCLLIBPATH', 'GEM_PATH', 'GEM_HOME', 'BUNDLE_GEMFILE',
  'OPENSSL_CONF', 'OPENSSL_ENGINES', 'SSLKEYLOGFILE',
];

/** Prefixes of denied names: exported shell functions, the loaders, interpreters, git config, and svc's own variables. */
export const DENIED_PARAM_PREFIXES: readonly string[] = [
  'BASH_FUNC_', 'LD_', 'DYLD_', 'PYTHON', 'PERL5', 'RUBY', 'GIT_CONFIG', 'SVC_',
];

/** Why `name` cannot name a param (quoted in the message), or undefined when it can. */
export function paramNameProblem(name: string): string | undefined {
  const shown = JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}...` : name);
  if (!PARAM_NAME.test(name)) return `invalid parameter name ${shown}: use letters, digits and "_", not starting with a digit`;
  if (DENIED_PARAM_NAMES.includes(name) || DENIED_PARAM_PREFIXES.some((p) => name.startsWith(p))) {
    return `parameter name ${shown} is not allowed: it is a variable shells, the loader or interpreters read as code or search paths`;
  }
  return undefined;
}
