#include "core/model/svg.h"

#include <gtest/gtest.h>

namespace bankcheck {
namespace {

TEST(XmlEscapeTest, ReplacesTheFiveSpecialCharacters) {
  EXPECT_EQ(XmlEscape(R"(a<b & "c" > 'd')"), "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;");
  EXPECT_EQ(XmlEscape("plain text"), "plain text");
}

}  // namespace
}  // namespace bankcheck
