// require_memory: the one up-front check that a job fits the memory it may use.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "nt/dataset.hpp"
#include "nt/error.hpp"

namespace {

struct EnvGuard {
  explicit EnvGuard(const char* value) {
    if (const char* old = std::getenv("NT_MEMORY_LIMIT")) saved = old, had = true;
    ::setenv("NT_MEMORY_LIMIT", value, 1);
  }
  ~EnvGuard() {
    if (had)
      ::setenv("NT_MEMORY_LIMIT", saved.c_str(), 1);
    else
      ::unsetenv("NT_MEMORY_LIMIT");
  }
  std::string saved;
  bool had = false;
};

TEST(RequireMemory, NamesTheLimitAndTheNeedInOneLine) {
  EnvGuard env("100M");
  const auto limit = nt::effective_memory_limit();
  EXPECT_EQ(limit.bytes, 100ull << 20);
  EXPECT_EQ(limit.source, "NT_MEMORY_LIMIT=100M");
  try {
    nt::require_memory(std::uint64_t{3} << 30, "two 20000x20000 matrices");
    FAIL() << "no error";
  } catch (const nt::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("two 20000x20000 matrices needs 3.22 GB"), std::string::npos) << m;
    EXPECT_NE(m.find("NT_MEMORY_LIMIT=100M"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_NO_THROW(nt::require_memory(50ull << 20, "a small job"));
}

TEST(RequireMemory, ALargerEnvLimitDoesNotRaiseThePhysicalOne) {
  EnvGuard env("1000000G");
  const auto limit = nt::effective_memory_limit();
  EXPECT_LT(limit.bytes, 1000000ull << 30);
  EXPECT_THROW(nt::require_memory(900000ull << 30, "an impossible job"), nt::Error);
}

TEST(RequireMemory, BadEnvIsAUsageError) {
  EnvGuard env("lots");
  EXPECT_THROW(nt::require_memory(1, "anything"), nt::UsageError);
}

}  // namespace
