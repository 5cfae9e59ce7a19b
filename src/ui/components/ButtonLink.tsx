import { forwardRef, type AnchorHTMLAttributes } from 'react';
import { Button, type ButtonProps } from '@mantine/core';
import { createLink } from '@tanstack/react-router';

const ButtonAnchor = forwardRef<HTMLAnchorElement, ButtonProps & AnchorHTMLAttributes<HTMLAnchorElement>>((props, ref) => <Button component="a" ref={ref} {...props} />);

/** A router link that looks like a button (typed `to`, `params`, `search`). */
export const ButtonLink = createLink(ButtonAnchor);
