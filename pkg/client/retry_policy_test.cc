#include "pkg/client/retry_policy.h"

#include <gtest/gtest.h>

namespace ksched::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RetryPolicyTest, WhatIsRetried) {
  EXPECT_TRUE(IsRetryable(false, AttemptFailure::kNotSent, 0));
  EXPECT_TRUE(IsRetryable(true, AttemptFailure::kConnectionLost, 0));
  EXPECT_FALSE(IsRetryable(false, AttemptFailure::kConnectionLost, 0));
  EXPECT_FALSE(IsRetryable(true, AttemptFailure::kTimeout, 0));
  EXPECT_FALSE(IsRetryable(true, AttemptFailure::kTlsHandshake, 0));
  EXPECT_FALSE(IsRetryable(true, AttemptFailure::kInvalidRequest, 0));
  EXPECT_TRUE(IsRetryable(false, AttemptFailure::kHttpStatus, 429));
  EXPECT_TRUE(IsRetryable(true, AttemptFailure::kHttpStatus, 500));
  EXPECT_TRUE(IsRetryable(true, AttemptFailure::kHttpStatus, 503));
  EXPECT_FALSE(IsRetryable(false, AttemptFailure::kHttpStatus, 500));
  EXPECT_FALSE(IsRetryable(true, AttemptFailure::kHttpStatus, 501));
  EXPECT_FALSE(IsRetryable(true, AttemptFailure::kHttpStatus, 404));
  EXPECT_FALSE(IsRetryable(true, AttemptFailure::kHttpStatus, 409));
}

TEST(RetryPolicyTest, ExponentialBackoffIsCappedAndJittered) {
  RetryPolicy p;
  p.initial_backoff = milliseconds(100);
  p.factor = 2;
  p.max_backoff = seconds(1);
  p.jitter = 0.5;
  EXPECT_EQ(RetryDelay(p, 1, std::nullopt, 0.0), milliseconds(100));
  EXPECT_EQ(RetryDelay(p, 2, std::nullopt, 0.0), milliseconds(200));
  EXPECT_EQ(RetryDelay(p, 4, std::nullopt, 0.0), milliseconds(800));
  EXPECT_EQ(RetryDelay(p, 5, std::nullopt, 0.0), seconds(1));
  EXPECT_EQ(RetryDelay(p, 30, std::nullopt, 0.0), seconds(1));
  EXPECT_EQ(RetryDelay(p, 1, std::nullopt, 1.0), milliseconds(150));
  EXPECT_EQ(RetryDelay(p, 5, std::nullopt, 0.5), milliseconds(1250));
}

TEST(RetryPolicyTest, RetryAfterWinsAndIsCapped) {
  RetryPolicy p;
  p.max_retry_after = seconds(30);
  EXPECT_EQ(RetryDelay(p, 7, seconds(3), 0.9), seconds(3));
  EXPECT_EQ(RetryDelay(p, 1, seconds(0), 0.9), seconds(0));
  EXPECT_EQ(RetryDelay(p, 1, seconds(600), 0.0), seconds(30));
}

TEST(RetryPolicyTest, ParsesRetryAfterSeconds) {
  EXPECT_EQ(ParseRetryAfter("3"), seconds(3));
  EXPECT_EQ(ParseRetryAfter(" 12 "), seconds(12));
  EXPECT_EQ(ParseRetryAfter("0"), seconds(0));
  EXPECT_EQ(ParseRetryAfter("-1"), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
  EXPECT_EQ(ParseRetryAfter(""), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("1.5"), std::nullopt);
}

}  // namespace
}  // namespace ksched::client
