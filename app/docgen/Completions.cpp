#include "Completions.h"

#include <algorithm>

namespace pipescope::docgen {

namespace {

std::string identifier(const std::string& program) {
  std::string id = "_" + program;
  std::replace(id.begin(), id.end(), '-', '_');
  return id;
}

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

std::vector<std::string> optionWords(const std::vector<OptionDoc>& options) {
  std::vector<std::string> words;
  for (const auto& o : options) {
    words.push_back("--" + o.name);
    if (!o.shortName.empty()) words.push_back("-" + o.shortName);
  }
  return words;
}

// The `case "$prev"` arms for one option list: files, directories, choices, or
// nothing (a number the user types).
std::string bashValueArms(const std::vector<OptionDoc>& options, const std::string& indent) {
  std::vector<std::string> files, dirs, free;
  std::string arms;
  for (const auto& o : options) {
    if (o.value.empty()) continue;
    const auto c = o.choices();
    if (!c.empty() && o.takesFile())  // NAME|FILE: a built-in name or a file
      arms += indent + "--" + o.name + ") COMPREPLY=($(compgen -W '" + join(c) + "' -- \"$cur\") $(compgen -f -- \"$cur\")); return ;;\n";
    else if (o.takesFile())
      files.push_back("--" + o.name);
    else if (o.takesDirectory())
      dirs.push_back("--" + o.name);
    else if (!c.empty())
      arms += indent + "--" + o.name + ") COMPREPLY=($(compgen -W '" + join(c) + "' -- \"$cur\")); return ;;\n";
    else
      free.push_back("--" + o.name);
  }
  if (!files.empty()) arms += indent + join(files, "|") + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  if (!dirs.empty()) arms += indent + join(dirs, "|") + ") COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
  if (!free.empty()) arms += indent + join(free, "|") + ") return ;;\n";
  return arms;
}

// zsh _arguments descriptions sit inside [...] within a single-quoted word.
std::string zshDescription(const std::string& help, bool inBrackets = true) {
  std::string d = help.substr(0, help.find_first_of(";("));
  while (!d.empty() && (d.back() == ' ' || d.back() == ',')) d.pop_back();
  if (d.size() > 70) d = d.substr(0, 67) + "...";
  std::string out;
  for (char c : d) {
    if (c == '\'') out += "'\\''";
    else if (inBrackets && (c == '[' || c == ']' || c == ':' || c == '\\')) out += std::string("\\") + c;
    else out += c;
  }
  return out;
}

std::string zshOptionSpecs(const std::vector<OptionDoc>& options, const std::string& indent) {
  std::string out;
  for (const auto& o : options) {
    const std::string desc = "[" + zshDescription(o.help) + "]";
    std::string action;
    if (!o.value.empty()) {
      std::string valueName = o.value;
      std::replace(valueName.begin(), valueName.end(), ':', ' ');
      const auto c = o.choices();
      if (!c.empty() && o.takesFile())
        // The spec is single-quoted: '\\'' closes, adds a quote, reopens.
        action = ":" + valueName + ":_alternative '\\''names:name:(" + join(c) + ")'\\'' '\\''files:file:_files'\\''";
      else if (o.takesFile()) action = ":" + valueName + ":_files";
      else if (o.takesDirectory()) action = ":" + valueName + ":_files -/";
      else if (!c.empty()) action = ":" + valueName + ":(" + join(c) + ")";
      else action = ":" + valueName + ": ";
    }
    const std::string eq = o.value.empty() ? "" : "=";
    if (!o.shortName.empty())
      out += indent + "'(-" + o.shortName + " --" + o.name + ")'{-" + o.shortName + ",--" + o.name + eq + "}'" + desc +
             action + "'\n";
    else
      out += indent + "'--" + o.name + eq + desc + action + "'\n";
  }
  return out;
}

}  // namespace

std::string renderBashCompletion(const ProgramDoc& p) {
  const std::string fn = identifier(p.program);
  std::string s;
  s += "# bash completion for " + p.program + "\n";
  s += "# Generated at build time by pipescope-docgen from the program's option definitions.\n";
  s += fn + "() {\n";
  s += "  COMPREPLY=()\n";
  s += "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
  s += "  # --option=value: bash splits at '=' (COMP_WORDBREAKS), so look one word further back.\n";
  s += "  if [[ $cur == = ]]; then cur=\"\"; elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then prev=\"${COMP_WORDS[COMP_CWORD-2]}\"; fi\n";
  if (p.commands.empty()) {
    s += "  case \"$prev\" in\n" + bashValueArms(p.options, "    ") + "  esac\n";
    s += "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W '" + join(optionWords(p.options)) +
         "' -- \"$cur\"))\n  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n";
  } else {
    std::vector<std::string> names;
    for (const auto& c : p.commands) names.push_back(c.name);
    s += "  local command=\"\" i\n";
    s += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
    s += "    case \"${COMP_WORDS[i]}\" in -*|=) ;; *) command=\"${COMP_WORDS[i]}\"; break ;; esac\n";
    s += "  done\n";
    s += "  if [[ -z $command ]]; then\n";
    s += "    COMPREPLY=($(compgen -W '" + join(names) + " " + join(optionWords(p.options)) + "' -- \"$cur\"))\n";
    s += "    return\n  fi\n";
    s += "  local options=\"\" operands=file\n";
    s += "  case \"$command\" in\n";
    for (const auto& c : p.commands) {
      s += "    " + c.name + ")\n";
      s += "      case \"$prev\" in\n" + bashValueArms(c.options, "        ") + "      esac\n";
      s += "      options='" + join(optionWords(c.options)) + " --help'\n";
      if (!c.takesFileOperands()) s += "      operands=\n";
      s += "      ;;\n";
    }
    s += "  esac\n";
    s += "  if [[ $cur == -* || -z $operands ]]; then\n";
    s += "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n";
    s += "  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n";
  }
  s += "}\n";
  s += "complete -F " + fn + " " + p.program + "\n";
  return s;
}

std::string renderZshCompletion(const ProgramDoc& p) {
  const std::string fn = identifier(p.program);
  std::string s;
  s += "#compdef " + p.program + "\n";
  s += "# zsh completion for " + p.program + "\n";
  s += "# Generated at build time by pipescope-docgen from the program's option definitions.\n";
  s += fn + "() {\n";
  if (p.commands.empty()) {
    s += "  _arguments -s \\\n";
    std::string specs = zshOptionSpecs(p.options, "    ");
    std::string joined;
    for (std::size_t at = 0; at < specs.size();) {
      const std::size_t nl = specs.find('\n', at);
      joined += specs.substr(at, nl - at) + " \\\n";
      at = nl + 1;
    }
    s += joined + "    '*:file:_files'\n";
  } else {
    s += "  local curcontext=\"$curcontext\" state line\n";
    s += "  typeset -A opt_args\n";
    s += "  _arguments -C \\\n";
    for (const auto& o : p.options) {
      if (o.name == "dump-options")
        s += "    '--dump-options=[" + zshDescription(o.help) + "]:format:(json)' \\\n";
      else if (!o.shortName.empty())
        s += "    '(- *)'{-" + o.shortName + ",--" + o.name + "}'[" + zshDescription(o.help) + "]' \\\n";
      else
        s += "    '(- *)--" + o.name + "[" + zshDescription(o.help) + "]' \\\n";
    }
    s += "    '1:command:->command' \\\n    '*::argument:->argument'\n";
    s += "  case $state in\n    command)\n      local -a commands=(\n";
    for (const auto& c : p.commands) s += "        '" + c.name + ":" + zshDescription(c.summary, false) + "'\n";
    s += "      )\n      _describe -t commands '" + p.program + " command' commands\n      ;;\n";
    s += "    argument)\n      case $line[1] in\n";
    for (const auto& c : p.commands) {
      s += "        " + c.name + ")\n          _arguments \\\n";
      std::string specs = zshOptionSpecs(c.options, "            ");
      for (std::size_t at = 0; at < specs.size();) {
        const std::size_t nl = specs.find('\n', at);
        s += specs.substr(at, nl - at) + " \\\n";
        at = nl + 1;
      }
      s += "            '(- *)--help[print this command'\\''s help]'";
      s += c.takesFileOperands() ? " \\\n            '*:file:_files'\n" : "\n";
      s += "          ;;\n";
    }
    s += "      esac\n      ;;\n  esac\n";
  }
  s += "}\n";
  s += fn + " \"$@\"\n";
  return s;
}

}  // namespace pipescope::docgen
