// Every test must assert something: a test that checks nothing passes whatever the code does.
import { beforeEach, expect } from "vitest";

beforeEach(() => {
  expect.hasAssertions();
});
