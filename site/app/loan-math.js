// Repayment figures for an amount, an annual rate, a term and a repayment method, computed the
// way Korean lenders state them in product explanations and ads (금소법 시행령 제18조①: the
// total amount payable, e.g. "100만원을 연 20%로 12개월 동안 원리금균등상환 시 총 납부금액
// 1,111,614원"):
//
//   r = APR / 100 / 12, interest for a month = the balance owed during it x r.
//   equal_installment (원리금균등): every month pays A = P r / (1 - (1 + r)^-n);
//                                  total = A n.
//   equal_principal   (원금균등):   every month repays P / n of the principal plus the month's
//                                  interest; the first month pays most: P / n + P r;
//                                  total = P + P r (n + 1) / 2.
//   bullet            (만기일시):   every month pays P r; the principal comes back at the end;
//                                  total = P + P r n.
//   revolving         (마이너스통장): figured as bullet on the full amount drawn.
//
// Figures are computed exactly and rounded to the won once, at the end (the stated examples
// are the exact annuity total rounded, not a sum of rounded installments). docs/loan-math.md
// gives the derivation; a test checks every method against a month-by-month amortisation.

export function monthlyRate(aprPct) {
  return aprPct / 100 / 12;
}

// { firstPayment, lastPayment, totalInterest, total } in won for `amount` won at `aprPct`
// percent a year over `months` months; null for inputs no loan has.
export function repayment(amount, aprPct, months, method) {
  if (!(amount > 0) || !(aprPct >= 0) || !(months >= 1) || Math.floor(months) !== months) return null;
  var r = monthlyRate(aprPct);
  var first, last, total;
  switch (method) {
    case "equal_installment":
      var payment = r === 0 ? amount / months : amount * r / (1 - Math.pow(1 + r, -months));
      first = last = payment;
      total = payment * months;
      break;
    case "equal_principal":
      first = amount / months + amount * r;
      last = amount / months * (1 + r);
      total = amount + amount * r * (months + 1) / 2;
      break;
    case "bullet":
    case "revolving":
      last = amount + amount * r;
      first = months === 1 ? last : amount * r;
      total = amount + amount * r * months;
      break;
    default:
      return null;
  }
  var totalWon = Math.round(total);
  return {
    firstPayment: Math.round(first),
    lastPayment: Math.round(last),
    totalInterest: totalWon - amount,
    total: totalWon,
  };
}
