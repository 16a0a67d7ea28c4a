#include "DocExamples.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace pipescope::doctest {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool isEnvAssignment(const std::string& w) {
  const auto eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  return std::all_of(w.begin(), w.begin() + std::ptrdiff_t(eq), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || c == '_' || std::isdigit(static_cast<unsigned char>(c));
  });
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A fence line ("```sh", "  ~~~"): its marker, or empty.
std::string fenceOf(const std::string& line) {
  const std::string t = trim(line);
  if (startsWith(t, "```")) return "```";
  if (startsWith(t, "~~~")) return "~~~";
  return {};
}

// The trailing comment of a shell line, outside quotes ("" when there is none).
std::string commentOf(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return trim(line.substr(i + 1));
    }
  }
  return {};
}

void addOptions(ParsedDoc& doc, int line, const std::string& text, const Attribution& where) {
  if (where.program == Attribution::Program::Other) return;
  for (const auto& name : optionNames(text)) doc.options.push_back({line, name, where, trim(text)});
}

// A line of a code block or a code span: what it names, attributed to its program.
// Text after a pipe belongs to the next program.
void addCommandText(ParsedDoc& doc, int line, const std::string& text, const std::vector<std::string>& commands) {
  std::string rest = text;
  while (true) {
    const auto bar = rest.find(" | ");
    const std::string stage = bar == std::string::npos ? rest : rest.substr(0, bar);
    addOptions(doc, line, stage, attribute(stage, commands));
    if (bar == std::string::npos) break;
    rest = rest.substr(bar + 3);
  }
}

// Prose: code spans are attributed one by one, the text between them is bare. A
// paragraph comes as one text whose lines start at `firstLine` (a span may be broken
// over two lines).
void addProse(ParsedDoc& doc, int firstLine, const std::string& text, const std::vector<std::string>& commands) {
  const auto lineAt = [&](std::size_t pos) {
    return firstLine + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(pos), '\n'));
  };
  std::string bare;
  std::size_t bareStart = 0;
  std::size_t i = 0;
  const auto flushBare = [&] {
    addOptions(doc, lineAt(bareStart), bare, Attribution{});
    bare.clear();
  };
  while (i < text.size()) {
    if (text[i] != '`') {
      if (text[i] == '\n') {
        flushBare();
        bareStart = i + 1;
      }
      bare += text[i++];
      continue;
    }
    std::size_t ticks = 0;
    while (i + ticks < text.size() && text[i + ticks] == '`') ++ticks;
    const std::string fence(ticks, '`');
    const auto close = text.find(fence, i + ticks);
    if (close == std::string::npos) {  // an unmatched backtick is text
      bare += text.substr(i, ticks);
      i += ticks;
      continue;
    }
    std::string span = text.substr(i + ticks, close - i - ticks);
    std::replace(span.begin(), span.end(), '\n', ' ');
    // "\|" in a table cell is a literal bar inside the span, not a pipe.
    for (std::size_t p; (p = span.find("\\|")) != std::string::npos;) span.replace(p, 2, "|");
    addCommandText(doc, lineAt(i), span, commands);
    i = close + ticks;
    bare += ' ';
  }
  flushBare();
}

DocStep exampleStep(int line, const std::string& command) {
  DocStep step;
  step.kind = DocStep::Kind::Example;
  step.line = line;
  step.command = command;
  const std::string comment = commentOf(command);
  if (startsWith(comment, "gpu")) step.needsGpu = true;
  if (startsWith(comment, "skip:")) step.skipReason = trim(comment.substr(5));
  if (startsWith(comment, "skip") && step.skipReason.empty()) step.skipReason = "marked skip";
  if (startsWith(comment, "exit ")) step.expectedExit = std::atoi(comment.c_str() + 5);
  return step;
}

void addDirective(ParsedDoc& doc, int line, const std::string& text) {
  const std::string prefix = "<!-- doc-example ";
  const auto at = text.find(prefix);
  if (at == std::string::npos) return;
  const auto end = text.find("-->", at);
  const std::string body =
      trim(text.substr(at + prefix.size(), end == std::string::npos ? std::string::npos : end - at - prefix.size()));
  DocStep step;
  step.line = line;
  if (startsWith(body, "setup:")) {
    step.kind = DocStep::Kind::Setup;
    step.command = trim(body.substr(6));
  } else {
    // An unknown directive is a mistake in the doc: keep it so the test reports it.
    step.kind = DocStep::Kind::Setup;
    step.command = "false  # unknown doc-example directive: " + body;
  }
  doc.steps.push_back(step);
}

// A fenced block from its opening line `i` (left on the closing fence).
void parseBlock(ParsedDoc& doc, const std::vector<std::string>& lines, std::size_t& i, const std::string& fence,
                const std::vector<std::string>& cliCommands) {
  std::string lang = trim(trim(lines[i]).substr(3));
  lang = lang.substr(0, lang.find_first_of(" \t{"));
  const bool shell = lang == "sh" || lang == "bash" || lang == "shell";
  const bool console = lang == "console";
  DocStep* lastExample = nullptr;  // the console command whose output follows
  bool lastFails = false;          // ... and it is shown failing: its output names wrong options on purpose
  for (++i; i < lines.size() && fenceOf(lines[i]) != fence; ++i) {
    const int blockLine = int(i) + 1;
    std::string line = trim(lines[i]);
    bool isCommand = shell;
    if (console || startsWith(line, "$ ")) {
      isCommand = startsWith(line, "$ ");
      if (isCommand) line = trim(line.substr(2));
    }
    // A command continued with a trailing backslash.
    while (isCommand && !line.empty() && line.back() == '\\' && i + 1 < lines.size() &&
           fenceOf(lines[i + 1]) != fence) {
      line.pop_back();
      line = trim(line) + " " + trim(lines[++i]);
    }
    if (!isCommand) {
      if (shell || console) {
        if (lastExample) lastExample->shownOutput.push_back(line);
        if (!lastFails) addOptions(doc, blockLine, line, Attribution{});
      } else {
        addCommandText(doc, blockLine, line, cliCommands);  // a synopsis, or text a program printed
      }
      continue;
    }
    lastExample = nullptr;
    lastFails = false;
    if (line.empty() || line[0] == '#') continue;
    const bool example =
        (shell || console) && attribute(firstPipelineStage(line), cliCommands).program == Attribution::Program::Cli;
    if (example) {
      doc.steps.push_back(exampleStep(blockLine, line));
      lastExample = &doc.steps.back();
      lastFails = lastExample->expectedExit != 0;
    }
    if (!lastFails) addCommandText(doc, blockLine, line, cliCommands);
  }
}

}  // namespace

Attribution attribute(const std::string& commandText, const std::vector<std::string>& cliCommands) {
  auto w = words(commandText);
  std::size_t i = 0;
  while (i < w.size() && (w[i] == "$" || isEnvAssignment(w[i]) || w[i] == "env" || w[i] == "sudo")) ++i;
  if (i >= w.size()) return {};
  const std::string& first = w[i];
  if (startsWith(first, "--") || startsWith(first, "[--")) return {};
  const std::string base = first.substr(first.find_last_of('/') == std::string::npos ? 0 : first.find_last_of('/') + 1);
  if (base == "pipescope-cli") {
    Attribution a{Attribution::Program::Cli, {}};
    if (i + 1 < w.size() && contains(cliCommands, w[i + 1])) a.command = w[i + 1];
    return a;
  }
  if (base == "pipescope") return {Attribution::Program::Gui, {}};
  if (contains(cliCommands, first)) return {Attribution::Program::Cli, first};
  return {Attribution::Program::Other, {}};
}

std::vector<std::string> optionNames(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] != '-' || text[i + 1] != '-') continue;
    if (i > 0) {
      const char before = text[i - 1];
      if (std::isalnum(static_cast<unsigned char>(before)) || before == '-' || before == '_') continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(text[i + 2]))) continue;
    std::size_t j = i + 2;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '-' || text[j] == '_'))
      ++j;
    std::string name = text.substr(i + 2, j - i - 2);
    while (!name.empty() && name.back() == '-') name.pop_back();
    out.push_back(name);
    i = j;
  }
  return out;
}

std::string firstPipelineStage(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    const bool afterSpace = i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t');
    if (afterSpace && (c == '#' || (c == '|' && i + 1 < line.size() && line[i + 1] == ' ')))
      return trim(line.substr(0, i));
  }
  return trim(line);
}

std::vector<std::string> optionsOfCliHelp(const std::string& helpText) {
  std::vector<std::string> out{"help"};
  std::istringstream in(helpText);
  for (std::string line; std::getline(in, line);) {
    if (!startsWith(line, "  ")) continue;
    std::string t = trim(line);
    if (t.size() > 4 && t[0] == '-' && t[1] != '-' && t[2] == ',') t = trim(t.substr(3));  // "-h, --help"
    if (!startsWith(t, "--")) continue;
    const auto names = optionNames(t.substr(0, t.find_first_of(" \t")));
    if (!names.empty()) out.push_back(names.front());
  }
  return out;
}

std::vector<std::string> commandsOfCliHelp(const std::string& helpText) {
  std::vector<std::string> out;
  std::istringstream in(helpText);
  bool inList = false;
  for (std::string line; std::getline(in, line);) {
    if (trim(line) == "Commands:") {
      inList = true;
      continue;
    }
    if (!inList) continue;
    if (!startsWith(line, "  ")) break;
    const auto w = words(line);
    if (!w.empty()) out.push_back(w.front());
  }
  return out;
}

ParsedDoc parseDoc(const std::string& markdown, const std::vector<std::string>& cliCommands) {
  ParsedDoc doc;
  std::vector<std::string> lines;
  {
    std::istringstream in(markdown);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::string paragraph;
  int paragraphLine = 0;
  const auto flushParagraph = [&] {
    if (!paragraph.empty()) addProse(doc, paragraphLine, paragraph, cliCommands);
    paragraph.clear();
  };
  bool inHtmlComment = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int lineNo = int(i) + 1;
    const std::string& raw = lines[i];
    const std::string fence = fenceOf(raw);
    if (!inHtmlComment && !fence.empty()) {
      flushParagraph();
      parseBlock(doc, lines, i, fence, cliCommands);
      continue;
    }
    if (trim(raw).empty()) {
      flushParagraph();
      continue;
    }
    // Outside code blocks: HTML comments hold the directives; the rest is prose.
    std::string prose;
    std::size_t pos = 0;
    while (pos < raw.size()) {
      if (inHtmlComment) {
        const auto end = raw.find("-->", pos);
        if (end == std::string::npos) break;
        inHtmlComment = false;
        pos = end + 3;
        continue;
      }
      const auto open = raw.find("<!--", pos);
      if (open == std::string::npos) {
        prose += raw.substr(pos);
        break;
      }
      prose += raw.substr(pos, open - pos);
      addDirective(doc, lineNo, raw.substr(open));
      inHtmlComment = true;
      pos = open + 4;
    }
    if (trim(prose).empty()) continue;
    if (paragraph.empty())
      paragraphLine = lineNo;
    else
      paragraph += '\n';
    paragraph += prose;
  }
  flushParagraph();
  return doc;
}

}  // namespace pipescope::doctest
