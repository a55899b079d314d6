// normrt-run on a converted cross-encoder, as a user runs it: a folder
// converted with its tokenizer stored, then --text (and --text-pair) on the
// command line; the printed logits against transformers' float64 outputs.
// The BERT classifier takes its token types from the stored tokenizer's
// pair template; XLM-R's and DistilBERT's have none.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "encoder_fixture.h"
#include "tests/support/scratch_dir.h"
#include "tools/convert/convert.h"

namespace normrt {
namespace {

std::string scratch(const std::string& name) {
  return test::scratch_dir(NORMRT_ENCODER_SCRATCH_DIR, "encoder-scratch") + "/" + name;
}

struct Captured {
  int status = -1;
  std::string out;
};

// Runs argv[0] with argv (no shell: the texts hold quotes, emoji, '$').
Captured run_capture(const std::vector<std::string>& args) {
  int fds[2];
  Captured result;
  if (pipe(fds) != 0) return result;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) result.out.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The values of the line "logits [..] f32: v v v" in normrt-run's output.
std::vector<float> printed_logits(const std::string& out) {
  std::vector<float> values;
  const size_t line = out.find("logits [");
  if (line == std::string::npos) return values;
  const size_t colon = out.find(':', line);
  std::istringstream numbers(out.substr(colon + 1, out.find('\n', colon) - colon - 1));
  for (float v; numbers >> v;) values.push_back(v);
  return values;
}

}  // namespace

TEST_SUITE("encoder_families") {
  TEST_CASE(
      "normrt-run --text / --text-pair on converted cross-encoders gives transformers' logits") {
    for (const char* name : {"tiny_bert_cls", "tiny_xlmr_cls", "tiny_distilbert_cls"}) {
      CAPTURE(std::string(name));
      auto fixture = test::read_encoder_fixture(name);
      REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
      const test::EncoderFixture& f = fixture.value();
      ConvertOptions options;
      options.model_dir = f.dir;
      options.output_path = scratch(std::string(name) + ".cli.nrmt");
      auto summary = convert(options);
      REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
      size_t pairs = 0, texts = 0;
      for (const test::EncoderCase& c : f.cases) {
        if (!c.first) continue;  // an ids-only case
        CAPTURE(c.label);
        std::vector<std::string> args = {NORMRT_RUN_BINARY, options.output_path, "--text",
                                         *c.first,          "--print",           "0"};
        if (c.second) {
          args.insert(args.end(), {"--text-pair", *c.second});
          ++pairs;
        } else {
          ++texts;
        }
        const Captured run = run_capture(args);
        REQUIRE_MESSAGE(run.status == 0, run.out);
        // The tokens line: as many ids as Hugging Face's encoding.
        CHECK(run.out.find("tokens: " + std::to_string(c.ids.size()) + "\n") != std::string::npos);
        // Six significant digits are printed: within 1e-5 of max |want| + 1e-4 relative.
        test::Comparison cmp = test::compare(printed_logits(run.out),
                                             f.outputs.at(c.label + "/logits").values, 1e-5, 1e-4);
        CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure << "\n" << run.out);
      }
      CHECK(pairs >= 2);
      CHECK(texts >= 2);
      std::remove(options.output_path.c_str());
    }
  }

  TEST_CASE("normrt-run refuses --text-pair without --text and with --vocab, naming both") {
    const Captured alone = run_capture({NORMRT_RUN_BINARY, "m.nrmt", "--text-pair", "b"});
    CHECK(alone.status == 2);
    CHECK(alone.out.find("--text-pair needs --text") != std::string::npos);
    const Captured vocab = run_capture(
        {NORMRT_RUN_BINARY, "m.nrmt", "--text", "a", "--text-pair", "b", "--vocab", "v.txt"});
    CHECK(vocab.status == 2);
    CHECK(vocab.out.find("--vocab tokenizes single texts only") != std::string::npos);
  }
}

}  // namespace normrt
