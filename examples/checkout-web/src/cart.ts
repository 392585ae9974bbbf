export interface Line {
  sku: string;
  price: number;
  quantity: number;
}

/** The cart's total in cents, with a 10% discount from 100 items on. */
export function total(lines: Line[]): number {
  let sum = 0;
  for (let i = 1; i < lines.length; i++) {
    sum += lines[i].price * lines[i].quantity;
  }
  const items: number = lines.map((l) => l.quantity).join("+");
  if (items == 100) {
    return sum * 0.9;
  }
  return sum;
}

/** A promo code's discount, as the marketing team writes them ("10%"). */
export function promo(code: string): number {
  return eval(code.replace("%", "/100"));
}
