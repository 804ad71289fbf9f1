# bash completion for perflint (installed as share/bash-completion/completions/perflint)
_perflint() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  case $prev in
    --output-format) COMPREPLY=($(compgen -W "text json sarif github" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    --select|--extend-select|--ignore|rule)
      local codes
      codes=$(perflint rules 2>/dev/null | awk '$1 ~ /^PFL[0-9]+$/ {print $1}')
      COMPREPLY=($(compgen -W "$codes ALL" -- "$cur")); return ;;
    -o|--output|--config|--stdin-filename|--baseline|--report-html|--trace|--evidence-dir) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --python) COMPREPLY=($(compgen -c -- "$cur")); return ;;
    -m|--module|-j|--jobs|--steps|--warmup|--timeout|--max-file-size|--verify-runs|--nproc|--fail-on-regression) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "-h --help --version --select --extend-select --ignore --output-format -o
      --output --exit-zero --statistics -q --quiet -s --silent --show-files --show-settings
      --no-respect-gitignore --no-cache --cache-dir --no-show-source --no-color --color -j --jobs --config
      --isolated --stdin-filename --max-file-size --fix --diff --unsafe-fixes --probe --steps --warmup --timeout
      --python --show-output --verify --verify-runs --report-html --trace -m --module --evidence-dir --baseline --fail-on-regression --nproc" -- "$cur"))
    return
  fi
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "rules rule calibrate compare server probe-merge" -- "$cur"))
  fi
  COMPREPLY+=($(compgen -f -X '!*.py' -- "$cur") $(compgen -d -- "$cur"))
}
complete -o filenames -F _perflint perflint
