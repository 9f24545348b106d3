import type { Command } from 'commander';

/**
 * `hookline completion bash|zsh`: a completion script generated from the command tree itself
 * (every command, subcommand and option as `buildProgram` declares them), so it cannot list a
 * command that does not exist or miss one that does. zsh loads the bash one through
 * bashcompinit, which every zsh ships.
 */

interface Level {
  readonly path: string;
  readonly words: readonly string[];
}

function levels(command: Command, globals: readonly string[], path = ''): Level[] {
  const options = command.options.flatMap((o) => (o.long ? [o.long] : o.short ? [o.short] : []));
  const subcommands = command.commands.map((c) => c.name());
  const here: Level = { path, words: [...subcommands, ...options, ...(path ? globals : []), '--help'] };
  return [here, ...command.commands.flatMap((c) => levels(c, globals, path ? `${path} ${c.name()}` : c.name()))];
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const globals = program.options.flatMap((o) => (o.long && o.long !== '--version' ? [o.long] : []));
  const all = levels(program, globals);
  const known = all
    .filter((l) => l.path)
    .map((l) => quote(l.path))
    .join('|');
  const cases = all.map((l) => `    ${l.path ? quote(l.path) : '""'}) words=${quote(l.words.join(' '))} ;;`).join('\n');
  const bash = `# hookline ${shell} completion: eval "$(npx hookline completion ${shell})"
_hookline() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${known || '""'}) path="$next" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _hookline hookline
`;
  return shell === 'bash' ? bash : `autoload -U +X bashcompinit && bashcompinit\n${bash}`;
}
