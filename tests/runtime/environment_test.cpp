// Boolean environment variables: one set of spellings for every setting, and an error naming the
// variable, its value and those spellings for anything else.
#include "cutlet/runtime/environment.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <string>

#include "cutlet/error.h"

namespace {

using cutlet::detail::env_flag;
using cutlet::detail::parse_env_flag;

std::string message_of_parse(const char* value) {
  try {
    parse_env_flag("CUTLET_SOME_FLAG", value, false);
  } catch (const cutlet::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected cutlet::Error for '" << value << "'";
  return "";
}

TEST(Environment, OnSpellingsAreTrueInAnyCaseAndWithSpacesAround) {
  for (const char* v : {"1", "on", "true", "yes", "ON", "True", "YES", " 1", "on ", "\ttrue\n", "  Yes  "})
    EXPECT_TRUE(parse_env_flag("CUTLET_SOME_FLAG", v, false)) << "'" << v << "'";
}

TEST(Environment, OffSpellingsAreFalseInAnyCaseAndWithSpacesAround) {
  for (const char* v : {"0", "off", "false", "no", "OFF", "False", "No", " 0 ", "  false", "no\n"})
    EXPECT_FALSE(parse_env_flag("CUTLET_SOME_FLAG", v, true)) << "'" << v << "'";
}

TEST(Environment, UnsetOrEmptyGivesTheDefault) {
  for (bool fallback : {false, true}) {
    EXPECT_EQ(parse_env_flag("CUTLET_SOME_FLAG", nullptr, fallback), fallback);
    EXPECT_EQ(parse_env_flag("CUTLET_SOME_FLAG", "", fallback), fallback);
    EXPECT_EQ(parse_env_flag("CUTLET_SOME_FLAG", "   ", fallback), fallback);
  }
}

TEST(Environment, OtherValuesAreRefusedNamingTheVariableTheValueAndTheSpellings) {
  for (const char* v : {"maybe", "2", "-1", "enabled", "t", "y", "tru e", "00", "on1"}) {
    const std::string msg = message_of_parse(v);
    EXPECT_NE(msg.find(std::string("CUTLET_SOME_FLAG='") + v + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1, on, true or yes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0, off, false or no"), std::string::npos) << msg;
  }
}

TEST(Environment, EnvFlagReadsTheVariable) {
  const char* name = "CUTLET_ENVIRONMENT_TEST_FLAG";
  ::unsetenv(name);
  EXPECT_TRUE(env_flag(name, true));
  EXPECT_FALSE(env_flag(name, false));
  ::setenv(name, "false", 1);
  EXPECT_FALSE(env_flag(name, true));
  ::setenv(name, "Yes", 1);
  EXPECT_TRUE(env_flag(name, false));
  ::setenv(name, "sure", 1);
  EXPECT_THROW(env_flag(name, false), cutlet::Error);
  ::unsetenv(name);
}

}  // namespace
