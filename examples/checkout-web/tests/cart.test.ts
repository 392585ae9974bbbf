import { expect, test } from "vitest";
import { total } from "../src/cart";

test("sums every line", () => {
  expect(total([{ sku: "a", price: 250, quantity: 2 }, { sku: "b", price: 100, quantity: 1 }])).toBe(600);
});
